"""The JAX-private names JAX 0.10.2's numerical-algorithm test files import
(jax._src.tpu.linalg's svd and Stack, jax._src.lib.version, jet's fact, test_util's build
checks) against what JAX answered for the same cases (tests/data/tpu_linalg_cases.py,
recorded by reference/make_tpu_linalg_reference.py)."""
import functools
import json

import numpy as np
import pytest
import tpu_linalg_cases as cases

import jxkernel
import locations  # tests/support: the repository's folders

# svd by qdwh and eigh: singular values of a float32 matrix of norm ~10 agree with JAX's to
# a few float32 ulps of the largest (JAX's and jxkernel's eigh and qr are the same LAPACK
# calls; the matrix products may round differently)
_S_ATOL = 64 * np.finfo(np.float32).eps * 10


def _reference() -> dict:
    return locations.jax_answers("tpu_linalg_reference.json")


@functools.cache
def _ours() -> dict:
    return json.loads(json.dumps(cases.run(jxkernel)))


def test_svd_matches_jax():
    want, got = _reference()["svd"], _ours()["svd"]
    assert sorted(got) == sorted(want)
    for case, expected in want.items():
        if case in ("values only", "non-finite gives NaN", "errors"):
            continue                     # (the next test's)
        assert got[case]["shapes"] == expected["shapes"], case
        assert got[case]["dtypes"] == expected["dtypes"], case
        np.testing.assert_allclose(got[case]["s"], expected["s"], rtol=0, atol=_S_ATOL)
        assert got[case]["reconstruction"] < 1e-5 and expected["reconstruction"] < 1e-5


def test_svd_values_only_and_errors_match_jax():
    want, got = _reference()["svd"], _ours()["svd"]
    np.testing.assert_allclose(got["values only"], want["values only"], rtol=0, atol=_S_ATOL)
    assert got["non-finite gives NaN"] == want["non-finite gives NaN"] == [True] * 3
    assert got["errors"] == want["errors"]


@pytest.mark.parametrize("group", ["stack", "misc", "clamp_jvp"])
def test_matches_jax_exactly(group):
    assert _ours()[group] == _reference()[group]


def test_lobpcg_debug_and_bcoo_products_match_jax():
    # 8 LOBPCG steps of diag(1..30) in float32: the two largest estimates within 1e-5
    # relative of JAX's (the same LAPACK eigh and qr each step; products may round apart)
    want, got = _reference()["lobpcg"], _ours()["lobpcg"]
    np.testing.assert_allclose(got["debug"]["theta"], want["debug"]["theta"], rtol=1e-5)
    assert {**got, "debug": {**got["debug"], "theta": None}} == \
        {**want, "debug": {**want["debug"], "theta": None}}


def test_jet_logistic_rule_by_jaxs_name():
    # float32 logistic and its Taylor recurrence (products and sums of a few terms): within
    # 4 ulps of JAX's, relative
    np.testing.assert_allclose(_ours()["jet_logistic"], _reference()["jet_logistic"],
                               rtol=4 * np.finfo(np.float32).eps)
