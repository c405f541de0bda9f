"""check_grads against JAX 0.10.2's (tests/data/check_grads_reference.json, from
reference/make_check_grads_reference.py): the same tangents, the same numerical JVPs (span
x +- eps, in each value's dtype) and the same pass/fail, by the shared cases in
tests/data/check_grads_cases.py."""
import functools

import numpy as np
import pytest

import jxkernel
from doc_examples import check_docstring_examples
from jxkernel.api import test_util
import locations  # tests/support: the repository's folders

from check_grads_cases import cases  # tests/data


REFERENCE = locations.recorded("check_grads_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases(jxkernel, test_util.check_grads, test_util.rand_like,
                                     test_util.numerical_jvp))


def _decode(entry):
    dtype, shape, re, im = entry
    a = np.asarray(re) + 1j * np.asarray(im) if np.dtype(dtype).kind == "c" else np.asarray(re)
    return a.astype(dtype).reshape(shape)


def test_tangents_are_jaxs_bit_for_bit():
    for ours, jaxs in zip(_ours()["tangents"], REFERENCE["tangents"], strict=True):
        np.testing.assert_array_equal(np.asarray(ours), _decode(jaxs))
        assert np.asarray(ours).dtype == _decode(jaxs).dtype


@pytest.mark.parametrize("name", [k for k in REFERENCE if k.startswith("numerical")])
def test_numerical_jvp_is_jaxs(name):
    # f's values may differ by an ulp between XLA's and jxkernel's kernels; the difference
    # divides by 2 eps (eps 1e-4 or 1e-3), so the bound is 2 ulp of f's values / (2 eps) with
    # eps = 1e-4: |f| <= 2, ulp <= 2.4e-7, bound 2.4e-3
    for ours, jaxs in zip(_ours()[name], REFERENCE[name], strict=True):
        want = _decode(jaxs)
        assert np.asarray(ours).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(ours), want, rtol=0, atol=2.4e-3)


@pytest.mark.parametrize("name", [k for k, v in REFERENCE.items()
                                  if isinstance(v, str) and not k.startswith("_")])
def test_check_grads_passes_and_fails_as_jaxs(name):
    assert _ours()[name] == REFERENCE[name]


def test_span_is_x_plus_minus_eps():
    # x**3 at 0 along t: (eps t)**3 * 2 / (2 eps) = eps**2 t**3, JAX's span (eps/2 would give a quarter)
    t = np.float32(1.5)
    got = test_util.numerical_jvp(lambda x: x ** 3, (np.float32(0),), (t,), eps=0.1)
    np.testing.assert_allclose(got, 0.01 * t ** 3, rtol=1e-5)


def test_docstring_examples():
    check_docstring_examples("jxkernel.api.test_util")
