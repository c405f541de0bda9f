"""jax.export with symbolic shapes through operations whose sizes, offsets or counts are
symbolic (convolutions, jnp.tril and the triangle indices, nonzero, bincount, jnp.pad's modes,
jnp.split, linspace, ...), against JAX 0.10.2 (tests/data/export_symbolic_ops_reference.json,
recorded by reference/make_export_symbolic_ops_reference.py from
tests/data/export_symbolic_ops_cases.py): the results' shapes as symbolic expressions and the
exported functions' values at one concrete size, or JAX's error type and first line where it
refuses. Integer results are exact; float ones within 1e-5 relative and absolute (float32
convolutions and ramps summed in another order: a few ulps, the tolerance JAX's own
shape_poly_test harnesses use)."""
import json

import numpy as np
import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_symbolic_ops_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("export_symbolic_ops_reference.json")

CASES = sorted(set(JAX) - {"equality constraints"})

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", CASES)
def test_as_jax(ours, case):
    got, want = ours[case], JAX[case]
    if "error" in want:
        assert got.get("error") == want["error"]
        return
    assert got.get("shapes") == want["shapes"], got.get("error")
    for g, w in zip(got["values"], want["values"], strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_equality_constraints_as_jax(ours):
    # a left side other than a variable ("mod(b, 4) == 0", "max(a, b) == b"): the term it
    # rewrites, and JAX's check and words when the export is called
    assert ours["equality constraints"] == JAX["equality constraints"]
