"""enable_x64 switched inside traced functions (grad's Python-scalar primals typed at entry,
ad_util.zeros keeping a 64-bit dtype while x64 is off) and jax_explicit_x64_dtypes, against
JAX's recorded answers (tests/data/x64_context_cases.py, recorded by
reference/make_x64_context_reference.py)."""

import numpy as np
import pytest
from numerics import ELEMENTWISE, assert_allclose_ulp
from x64_context_cases import (context_managers_in_threads, explicit_x64_dtypes,
                               grad_through_x64_block, scan_with_x64_block)

import jxkernel as jax
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("x64_context_reference.json")


def _assert_typed_close(got, want, where):
    """[value, dtype, weak_type] triples: dtype and weak type exactly, values within the
    elementwise ulp bound (sin and cos of float32)."""
    assert got[1:] == want[1:], where
    assert_allclose_ulp(np.asarray(got[0], want[1]), np.asarray(want[0], want[1]), ELEMENTWISE,
                        err_msg=where)


def test_grad_of_a_function_with_an_x64_block_stays_32_bit():
    got, want = grad_through_x64_block(jax), REF["grad_through_x64_block"]
    assert got["jaxpr"] == want["jaxpr"]
    for name in ("python_float", "float32"):
        _assert_typed_close(got[name], want[name], name)
    for g, w in zip(got["value_and_grad"], want["value_and_grad"]):
        _assert_typed_close(g, w, "value_and_grad")


def test_scan_keeps_int64_ys_made_in_an_x64_block():
    assert scan_with_x64_block(jax) == REF["scan_with_x64_block"]       # ints: exactly


def test_explicit_x64_dtypes_error_mode():
    assert explicit_x64_dtypes(jax) == REF["explicit_x64_dtypes"]


def test_explicit_x64_dtypes_allow_keeps_a_named_64_bit_dtype():
    # as JAX's 'allow': the 64-bit type asked for is kept while x64 is off (JAX's answers
    # for many more cases: tests/numpy/test_x64_allow.py)
    with jax.config.override("jax_explicit_x64_dtypes", "allow"):
        assert jax.numpy.zeros(3, jax.numpy.float64).dtype == np.float64
        assert jax.numpy.zeros(3, np.float32).dtype == np.float32
        assert jax.numpy.zeros(3).dtype == np.float32
    with pytest.raises(ValueError, match="'loud' is not a valid ExplicitX64Mode"):
        jax.config.update("jax_explicit_x64_dtypes", "loud")
    assert str(jax.config.jax_explicit_x64_dtypes) == "1"          # still WARN


def test_config_context_managers_hold_for_their_thread_only():
    """enable_x64 and numpy_rank_promotion in threads at once, a thread started inside a
    block, config.update inside a block: JAX's thread-local overrides (x64_context_test's
    test_thread_safety)."""
    got = context_managers_in_threads(jax)
    want = REF["context_managers_in_threads"]
    assert got == want
