"""jax_explicit_x64_dtypes='allow' with x64 off, against JAX 0.10.2's recorded answers
(tests/data/x64_allow_cases.py, recorded by reference/make_x64_allow_reference.py): dtypes,
weak types, integer values and jaxprs exactly; float values within ELEMENTWISE ulps (4: XLA's
float64 sin and exp differ by CPU, the rest are exact). The cases in DIFFERENT are
jxkernel's deliberate differences (conformance/README.md), each tested for what it keeps."""
import json

import numpy as np
import pytest
from numerics import ELEMENTWISE, assert_allclose_ulp
from x64_allow_cases import BIG, DIFFERENT, run

import jxkernel as jax
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("x64_allow_reference.json")


@pytest.fixture(scope="module")
def got():
    return json.loads(json.dumps(run(jax)))


def _assert_same(got, want, where):
    """One observation against JAX's: exactly, but float values within ELEMENTWISE ulps."""
    if want and want[0] in ("raised", "dtype", "text"):
        assert got == want, where
        return
    if not isinstance(want[1], str):                           # a tuple's observations
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            _assert_same(g, w, where)
        return
    assert got[1:] == want[1:], where                          # dtype and weak type
    values, dtype = np.asarray(want[0]), np.dtype(want[1])
    if dtype.kind in "fc":
        real = np.float64 if dtype.itemsize == (16 if dtype.kind == "c" else 8) else np.float32
        assert_allclose_ulp(np.asarray(got[0], real), np.asarray(values, real), ELEMENTWISE,
                            err_msg=where)
    else:
        assert got[0] == want[0], where


def test_every_case_is_recorded(got):
    assert set(got) == set(REF)
    assert set(DIFFERENT) <= set(got)


@pytest.mark.parametrize("name", sorted(set(REF) - set(DIFFERENT)))
def test_case_matches_jax(got, name):
    _assert_same(got[name], REF[name], name)


def test_jit_cache_key_holds_the_mode(got):
    # (one jitted function: int32 under 'warn', int64 under 'allow', int32 again)
    assert [o[1] for o in got["jit_cache_by_mode"]] == ["int32", "int64", "int32"]


# ---------------------------------------------------------------- deliberate differences
def test_host_values_given_a_64_bit_dtype_keep_their_value(got):
    # JAX narrows the value to 32 bits first: 2**40 + 3 is 3, 0.1 is float32's, 2**63 + 5
    # is 5; jxkernel keeps what was given
    assert REF["array_big_int64"] == [int(np.int64(BIG).astype(np.int32)), "int64", False]
    assert got["array_big_int64"] == [BIG, "int64", False]
    assert REF["array_float64_precision"] == [float(np.float32(0.1)), "float64", False]
    assert got["array_float64_precision"] == [0.1, "float64", False]
    assert REF["array_uint64_big"] == [[5], "uint64", False]
    assert got["array_uint64_big"] == [[2 ** 63 + 5], "uint64", False]


def test_randint_int64_is_x64s_randint(got):
    # JAX's int64 bound (iinfo(int64).max, narrowed to -1) widens its span by one: other
    # samples, and maxval among them; jxkernel draws what x64 mode draws from the same key
    assert REF["randint_int64_range"] == [True, "bool", False]
    assert got["randint_int64_range"] == [False, "bool", False]
    assert REF["randint_int64"][1:] == got["randint_int64"][1:] == ["int64", False]
    with jax.enable_x64(True):
        want = jax.random.randint(jax.random.key(0), (3,), 0, 10, np.int64)
    assert got["randint_int64"][0] == np.asarray(want).tolist()


# XLA's float64 erf_inv and the NumPy rule's (SciPy's) differ by a few ulps: 6 measured
ERF_INV_ULPS = 16


def test_normal_float64_is_x64s_normal(got):
    # JAX raises (a float32 constant meets the float64 samples); jxkernel draws what x64
    # mode draws from the same key
    assert REF["normal_float64"][:2] == ["raised", "TypeError"]
    with jax.enable_x64(True):
        want = jax.random.normal(jax.random.key(0), (3,), np.float64)
    assert got["normal_float64"][1:] == ["float64", False]
    assert_allclose_ulp(np.asarray(got["normal_float64"][0]), np.asarray(want), ERF_INV_ULPS)

