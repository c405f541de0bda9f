"""A Ref a custom_vjp's fwd returns as a residual and its bwd writes, as JAX 0.10.2's
(tests/data/ref_residual_cases.py, recorded by reference/make_ref_residual_reference.py):
under jit (the stand-in jit traced for the Ref argument, its trace ended, writes the Ref the
call passed), in a scan body with and without remat (the transposed body carries the Ref), and
through vjp with has_aux; and linearize of a while loop whose body calls a custom_vjp (the
loop computing the known carries runs without its custom_lin; the linear function then raises
JAX's TypeError). Values: sin and cos of XLA's CPU kernels, within 4 ulp of JAX's
(float32); the amax histories are whole numbers (exact)."""
import functools

import numpy as np
import pytest

import jxkernel
import locations  # tests/support: the repository's folders and recordings
import ref_residual_cases as cases

REFERENCE = locations.jax_answers("ref_residual_reference.json")
ours = functools.cache(lambda: cases.run(jxkernel))


def _close(a, b):
    if isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=4 * np.finfo(np.float32).eps, atol=0)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    got, want = ours()[name], REFERENCE[name]
    assert got[0] == want[0], got
    if want[0] == "ok":
        _close(got[1], want[1])
    else:                       # (JAX's error, its first line)
        assert got[1] == want[1]


def test_a_transposed_jaxpr_writing_a_ref_is_not_cached():
    # the Ref is each call's own: a cached transpose would write the first call's Ref
    assert REFERENCE["one_jit_two_refs"][1][1] == 0.0 == ours()["one_jit_two_refs"][1][1]
