"""lax.associative_scan, lax.map with batch_size (remainder included) and lax.full/full_like:
against JAX 0.10.2's recorded results (tests/data/loops_cases.py: bit for bit, except the
floats of its ULPS, within their bound in ulps), the staged program, and the errors."""
import functools
import os

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax

from loops_cases import ULPS, cases
from numerics import assert_allclose_ulp
import locations  # tests/support: the repository's folders

REFERENCE = np.load(os.path.join(locations.DATA, "loops_reference.npz"))
NAMES = sorted({key.split("#")[0] for key in REFERENCE.files})


@functools.cache
def ours() -> dict:
    """The cases' leaves, computed once per process on first use (not while collecting: a
    worker that runs none of these tests never pays for their ~170 compiles)."""
    return {name: jax.tree_util.tree_leaves(v) for name, v in cases(jax).items()}


def test_the_cases_are_the_recorded_ones():
    assert sorted(ours()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_matches_jax(name):
    leaves = ours()[name]
    ulps, scaled = ULPS.get(name, (0, False))
    assert len(leaves) == len([k for k in REFERENCE.files if k.startswith(f"{name}#")
                               and not k.endswith("@weak")])
    for i, leaf in enumerate(leaves):
        want, got = REFERENCE[f"{name}#{i}"], np.asarray(leaf)
        if ulps:
            scale = np.abs(want).max() if scaled else None
            assert_allclose_ulp(got, want, ulps, scale=scale, err_msg=f"{name}#{i}")
        else:           # bit for bit: -0.0 and NaN payloads too
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        assert bool(getattr(leaf, "weak_type", False)) == bool(REFERENCE[f"{name}#{i}@weak"])


def test_associative_scan_stages_log_depth_slices_not_a_loop():
    jaxpr = jax.make_jaxpr(lambda v: lax.associative_scan(jnp.add, v))(np.ones(8, np.float32))
    prims = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "scan" not in prims and "while" not in prims
    assert prims.count("add") == 2 * 3 - 1 + 2 * 3 - 2     # combines, and the interleave adds


def test_associative_scan_errors():
    with pytest.raises(TypeError, match="fn argument should be callable"):
        lax.associative_scan(3, np.ones(3))
    with pytest.raises(ValueError, match="must have the same first dimension"):
        lax.associative_scan(lambda a, b: a, (np.ones(3), np.ones(4)))


def test_full_errors():
    with pytest.raises(TypeError, match=r"scalar fill_value, got fill_value.shape \(2,\)"):
        lax.full((2,), np.ones(2))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
        lax.full((2.5,), 1.0)


def test_full_of_a_traced_value_stays_traced():
    closed = jax.make_jaxpr(lambda v: lax.full((2,), v))(1.0)
    assert str(closed) == "{ lambda ; a:f32[]. let b:f32[2] = broadcast_in_dim a in (b,) }"
    assert np.asarray(jax.grad(lambda v: lax.full((3,), v).sum())(2.0)) == 3.0
