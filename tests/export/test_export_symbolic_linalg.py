"""jax.export with symbolic shapes through LAPACK's decompositions, a dynamic_slice of
symbolic size, the random samplers, a padded max pool's gradient and jnp.average/percentile,
against JAX 0.10.2 (tests/data/export_symbolic_linalg_reference.json, recorded by
reference/make_export_symbolic_linalg_reference.py from
tests/data/export_symbolic_linalg_cases.py): the results' shapes as symbolic expressions and
the exported functions' values at one concrete size. Integer results (pivots, permutations,
random bits) are exact; float ones within 1e-5 relative and absolute (float32 from the same
LAPACK routines and the same formulas, about 100 ulps near 1, the tolerance JAX's own
shape_poly_test harnesses use)."""
import json

import numpy as np
import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_symbolic_linalg_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("export_symbolic_linalg_reference.json")

CASES = sorted(set(JAX))

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", CASES)
def test_values_as_jax(ours, case):
    for got, want in zip(ours[case]["values"], JAX[case]["values"], strict=True):
        got, want = np.asarray(got), np.asarray(want)
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", CASES)
def test_shapes_as_jax(ours, case):
    assert ours[case]["shapes"] == JAX[case]["shapes"]


def test_the_forward_compatibility_option_exists_and_changes_nothing():
    # JAX 0.10.2's shape_poly_test harness "inv" sets it (it raised KeyError here); jxkernel
    # has no forward-compatibility lowering rules, so both values export one module
    b, = jxkernel.export.symbolic_shape("b")
    fn = jxkernel.jit(lambda x: jxkernel.numpy.linalg.inv(x))
    spec = jxkernel.ShapeDtypeStruct((b, b), np.float32)
    config = jxkernel.config
    assert config.jax_export_ignore_forward_compatibility is False
    texts = []
    try:
        for value in (True, False):
            config.update("jax_export_ignore_forward_compatibility", value)
            texts.append(jxkernel.export.export(fn)(spec).mlir_module())
    finally:
        config.update("jax_export_ignore_forward_compatibility", False)
    assert texts[0] == texts[1]


def test_repeat_of_a_symbolic_count_with_a_total_length_is_refused_as_jax():
    # JAX 0.10.2's shape_poly_test harness repeat_repeats_poly_axis_None_total_repeat_length1
    b, = jxkernel.export.symbolic_shape("b")
    fn = jxkernel.jit(lambda x: jxkernel.numpy.repeat(x, x.shape[0], total_repeat_length=8))
    with pytest.raises(ValueError, match=r"jnp.repeat with a non-constant `repeats` is "
                                         r"supported only when `total_repeat_length` is None\. "
                                         r"\(repeats=b total_repeat_length=8\)"):
        jxkernel.export.export(fn)(jxkernel.ShapeDtypeStruct((b, 2), np.float32))
