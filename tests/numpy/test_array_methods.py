"""Operators and methods of Array and Tracer against JAX's recorded results
(tests/data/jnp_cases.py), plus Python protocol details (NotImplemented deferral,
immutability, iteration, hashing)."""
import functools
import operator

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.core.trace import Tracer

from compiled import jit_together
from jnp_check import matches_jax_tests
from numerics import ELEMENTWISE, assert_allclose_ulp

# JaxprTracer keeps its jaxpr variable in a slot named `var`, which hides the installed
# Array.var method on staged values (reported to the core owner).
KNOWN_JIT = {}


test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values, \
    test_matches_jax_x64_types = matches_jax_tests("operator", "method", every=4,
                                                   known_jit=KNOWN_JIT)

# ---------------------------------------------------------------- operators vs NumPy
OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
       operator.mod, operator.pow, operator.lt, operator.eq, operator.ge]


def _operands():
    return (np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32),
            np.array([2.0, 0.5, -3.0], np.float32))


@functools.cache
def _operators_jitted():
    """jit(op)(x, y) of every case of test_operators_vs_numpy_and_jit, compiled together
    (compiled.jit_together: one program instead of ten)."""
    return jit_together(jax, {op.__name__: (op, _operands()) for op in OPS})


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.__name__)
def test_operators_vs_numpy_and_jit(op):
    x, y = _operands()
    # NumPy's float32 results (its pow is libm's powf): +, -, *, / and comparisons round once,
    # so only ** may differ in the last bits; floor division and modulo agree exactly
    out = op(jnp.asarray(x), jnp.asarray(y))
    with np.errstate(invalid="ignore"):
        want = op(x, y)
    assert_allclose_ulp(np.asarray(out), want, ELEMENTWISE)
    # (eager runs floor division and modulo op by op, jit fuses them)
    assert_allclose_ulp(np.asarray(_operators_jitted()[op.__name__]), np.asarray(out),
                        ELEMENTWISE)
    rev = op(2.0, jnp.asarray(y))                  # reflected, with a weak Python scalar
    assert_allclose_ulp(np.asarray(rev), op(np.float32(2.0), y), ELEMENTWISE)


def test_operators_on_tracers():
    def f(x):
        assert isinstance(x, Tracer)
        return (-x + 1) * 2 / 4 // 1 % 3 ** 1, abs(x) >= 0, ~(x > 0), x @ x
    outs = jax.jit(f)(jnp.arange(3.0))
    assert np.asarray(outs[0]).tolist() == [0.0, 0.0, 2.0]
    assert np.asarray(outs[2]).tolist() == [True, False, False]
    assert float(outs[3]) == 5.0


def test_unknown_operands_defer_to_python():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"
    x = jnp.ones(2)
    assert x + Other() == "radd" and x * Other() == "rmul"
    with pytest.raises(TypeError, match="unsupported operand"):
        x + [1, 2]
    with pytest.raises(TypeError):
        x - "a"


def test_arrays_are_immutable_and_unhashable():
    x = jnp.ones(3)
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 2.0
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)


def test_tracer_iteration_and_len():
    def f(x):
        rows = list(x)
        return rows[0] + rows[1], len(x)
    s, n = jax.jit(f)(jnp.arange(6.0).reshape(2, 3))
    assert np.asarray(s).tolist() == [3.0, 5.0, 7.0] and int(n) == 2
    text = str(jax.make_jaxpr(lambda x: list(x))(jnp.ones((2, 3))))
    assert "slice[" in text and "squeeze[dimensions=(0,)]" in text
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        jax.jit(lambda x: list(x))(1.0)


def test_item_and_tolist_need_concrete_values():
    with pytest.raises(jax.ConcretizationTypeError, match="item"):
        jax.jit(lambda x: x.item())(1.0)
    assert jnp.asarray([1, 2]).tolist() == [1, 2]


def test_round_builtin():
    assert round(jnp.asarray(2.5)).dtype == np.int32
    assert int(round(jnp.asarray(2.5))) == 2
    assert round(jnp.asarray(2.567), 1).dtype == np.float32


def test_at_property():
    x = jnp.arange(4)
    assert np.asarray(x.at[1].set(9)).tolist() == [0, 9, 2, 3]
    assert np.asarray(x.at[::2].add(10)).tolist() == [10, 1, 12, 3]
    assert np.asarray(jax.jit(lambda v: v.at[0].mul(5))(x + 1)).tolist() == [5, 2, 3, 4]


def test_methods_forward_keywords():
    x = jnp.arange(6.0).reshape(2, 3)
    assert x.sum(axis=1, keepdims=True).shape == (2, 1)
    assert x.astype(jnp.int8).dtype == np.int8
    assert x.reshape(3, 2).shape == x.reshape((3, 2)).shape == (3, 2)
    with pytest.raises(TypeError, match="cannot reshape"):
        x.reshape(4, 2)
    assert x.clip(min=1).min() == 1.0
    with pytest.raises(NotImplementedError, match="flat"):
        x.flat


def test_byteswap():
    # JAX 0.10.2's Array.byteswap: each element's bytes reversed, the dtype kept; viewed as
    # big-endian the bytes are the original values; complex parts swap apart; bytes are kept
    x = jnp.arange(5, dtype="int32")
    swapped = x.byteswap()
    assert swapped.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(swapped), np.arange(5, dtype=np.int32).byteswap())
    np.testing.assert_array_equal(np.array(swapped).view(">i4"), np.arange(5))
    for dtype in (np.float32, np.complex64, np.uint8, np.int16):
        v = np.array([1, 2, 300], dtype) if dtype != np.uint8 else np.arange(3, dtype=dtype)
        got = np.asarray(jnp.asarray(v).byteswap())
        np.testing.assert_array_equal(got.view(np.uint8), v.byteswap().view(np.uint8))
    traced = jax.jit(lambda x: x.byteswap().byteswap())(x)
    np.testing.assert_array_equal(np.asarray(traced), np.arange(5))
