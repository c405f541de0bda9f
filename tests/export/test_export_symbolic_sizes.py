"""Slicing an axis of symbolic size under jax.export (symbolic bounds, steps other than 1,
negative bounds and steps) and jnp.arange with symbolic bounds or step, against JAX 0.10.2
(tests/data/export_symbolic_sizes_reference.json, recorded by
reference/make_export_symbolic_sizes_reference.py from tests/data/export_symbolic_sizes_cases.py):
the result's shape as a symbolic expression, and the exported function's values at two
concrete sizes (exact: slicing and integer aranges move or count values)."""
import json

import numpy as np
import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_symbolic_sizes_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("export_symbolic_sizes_reference.json")

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(set(JAX)))
def test_values_as_jax(ours, case):
    assert ours[case]["calls"] == JAX[case]["calls"]


@pytest.mark.parametrize("case", sorted(set(JAX)))
def test_shape_as_jax(ours, case):
    assert ours[case]["shape"] == JAX[case]["shape"]


def test_einsum_of_unequal_symbolic_contractions_is_refused_as_jax():
    # JAX 0.10.2's shape_poly_test harness einsum_incompatible_contractions_error: its
    # AssertionError, as opt_einsum planned with both sizes as 8
    b0, b1 = jxkernel.export.symbolic_shape("b0, b1")
    with pytest.raises(AssertionError, match="Incompatible reduction dimensions"):
        fn = jxkernel.jit(lambda x, y: jxkernel.numpy.einsum("ab,cb->ac", x, y))
        jxkernel.export.export(fn)(jxkernel.ShapeDtypeStruct((2, b0), np.float32),
                                   jxkernel.ShapeDtypeStruct((2, b1), np.float32))
