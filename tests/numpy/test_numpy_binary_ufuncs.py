"""jnp.add, jnp.multiply, ... are jnp.ufunc objects, as in JAX 0.10.2 (its ufunc_api
docstrings run `jnp.add.reduce`, `jnp.multiply.outer`, `jnp.add.at`, `jnp.add.nin`): their
call is the elementwise function, reduce/accumulate/at the matching reductions and `.at`
updates where JAX has them, a loop over the axis otherwise."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp

from numerics import assert_allclose_ulp

X = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
BINARY = ["add", "multiply", "subtract", "minimum", "maximum", "bitwise_and", "bitwise_or",
          "bitwise_xor", "logical_and", "logical_or", "logical_xor", "logaddexp", "logaddexp2"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_are_ufuncs(name):
    uf = getattr(jnp, name)
    assert isinstance(uf, jnp.ufunc) and (uf.nin, uf.nout, uf.nargs) == (2, 1, 2)
    assert uf.__name__ == name and repr(uf) == f"<jnp.ufunc '{name}'>"
    # the call is NumPy's elementwise function
    a, b = np.array([1, 0, 3], np.int32), np.array([2, 2, 1], np.int32)
    if name.startswith("logaddexp"):
        a, b = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_allclose(np.asarray(uf(a, b)), getattr(np, name)(a, b), rtol=1e-6)


def test_identities_as_in_jax():
    assert (jnp.add.identity, jnp.multiply.identity, jnp.bitwise_and.identity) == (0, 1, -1)
    assert jnp.subtract.identity is None and jnp.logical_and.identity is True
    assert jnp.logaddexp.identity == -np.inf


def test_reduce_accumulate_outer_exact():
    # integer results: exact, the values of NumPy's ufunc methods
    for name in ["add", "multiply", "minimum", "maximum", "bitwise_and", "bitwise_or",
                 "bitwise_xor"]:
        np_uf, uf = getattr(np, name), getattr(jnp, name)
        for axis in (0, 1, None):
            got = uf.reduce(X, axis=axis)
            np.testing.assert_array_equal(np.asarray(got), np_uf.reduce(X, axis=axis))
            assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(uf.accumulate(X, axis=1)),
                                      np_uf.accumulate(X, axis=1))
        np.testing.assert_array_equal(np.asarray(uf.outer(X[0], X[1])), np_uf.outer(X[0], X[1]))
    np.testing.assert_array_equal(np.asarray(jnp.logical_and.reduce(X > 2)), [False, False, True])
    np.testing.assert_array_equal(np.asarray(jnp.add.reduce(X, where=X > 2)), [4, 5, 9])
    assert jnp.minimum.reduce(X, dtype="float32").dtype == np.float32
    np.testing.assert_array_equal(np.asarray(jnp.add.reduceat(np.arange(8), np.array([0, 4]))),
                                  [6, 22])


def test_at_updates_a_copy():
    x = np.ones(10, np.int32)
    got = jnp.add.at(x, np.array([2, 5, 7]), np.array([10, 20, 30]), inplace=False)
    np.testing.assert_array_equal(np.asarray(got), [1, 1, 11, 1, 1, 21, 1, 31, 1, 1])
    got = jnp.add.at(np.zeros(4, bool), np.array([1, 1]), True, inplace=False)
    assert got.dtype == np.bool_ and np.asarray(got).tolist() == [False, True, False, False]
    np.testing.assert_array_equal(
        np.asarray(jnp.multiply.at(x, np.array([1, 1]), 3, inplace=False))[:3], [1, 9, 1])
    np.testing.assert_array_equal(
        np.asarray(jnp.subtract.at(np.ones(3, np.float32), 1, 2.0, inplace=False)), [1, -1, 1])
    with pytest.raises(NotImplementedError, match="in place"):
        jnp.add.at(x, 0, 1)


def test_logaddexp_reduce_as_logsumexp():
    # JAX's logaddexp.reduce is log(sum(exp(a - max))) + max: against float64, within 2 ulps
    # [worst seen 1 ulp]
    a = np.array([[0.0, 1.0, 2.0], [-3.0, 40.0, 40.5]], np.float32)
    want = np.logaddexp.reduce(a.astype(np.float64), axis=1).astype(np.float32)
    assert_allclose_ulp(np.asarray(jnp.logaddexp.reduce(a, axis=1)), want, 2)
    want2 = np.logaddexp2.reduce(a.astype(np.float64), axis=0).astype(np.float32)
    assert_allclose_ulp(np.asarray(jnp.logaddexp2.reduce(a, axis=0)), want2, 2)


def test_methods_are_jitted_under_their_names():
    # JAX jits ufunc.reduce: `jit[name=reduce]` around the reduction in a jaxpr
    text = str(jax.make_jaxpr(lambda x: jnp.add.reduce(x))(np.ones(3, np.float32)))
    assert "name=reduce" in text and "reduce_sum" in text
    # the call itself is the elementwise function: no jit around `add`
    assert "jit" not in str(jax.make_jaxpr(jnp.add)(1.0, 2.0))
    assert jax.jit(jnp.add)(1.0, 2) == 3.0


# JAX 0.10.2's jnp.ufunc objects, recorded: `[n for n in dir(jnp) if isinstance(getattr(jnp, n),
# jnp.ufunc)]` under JAX (its own tests/lax_numpy_ufuncs_test.py parameterizes over this list and
# over its unary members, negative being the one)
JAX_UFUNCS = BINARY + ["negative"]


def test_the_ufunc_objects_are_jaxs():
    assert sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc)) == sorted(JAX_UFUNCS)


def test_negative_is_a_unary_ufunc():
    neg = jnp.negative
    assert (neg.nin, neg.nout, neg.nargs, neg.identity) == (1, 1, 1, None)
    assert repr(neg) == "<jnp.ufunc 'negative'>"
    x = np.array([0.0, 1.0, 2.0], np.float32)
    np.testing.assert_array_equal(np.asarray(neg(x)), np.negative(x))
    # at: as NumPy's np.negative.at on a copy (JAX 0.10.2: [0., -1., 2.])
    expected = x.copy()
    np.negative.at(expected, 1)
    np.testing.assert_array_equal(np.asarray(neg.at(x, 1, inplace=False)), expected)
    # the binary methods refuse, with JAX's message
    for method, args in [("reduce", (x,)), ("accumulate", (x,)), ("outer", (x, x)),
                         ("reduceat", (x, [0]))]:
        with pytest.raises(ValueError, match=f"{method} only supported for binary ufuncs"):
            getattr(neg, method)(*args)


def test_reduce_with_a_traced_where_mask():
    # found by JAX's tests/lax_numpy_ufuncs_test.py: the mask's dtype was read as NumPy data
    x = np.arange(4.0, dtype=np.float32)
    mask = np.array([True, False, True, False])
    got = jax.jit(lambda a, w: jnp.add.reduce(a, where=w))(x, mask)
    assert float(got) == np.add.reduce(x, where=mask)                   # 2.0, exact
    with pytest.raises(ValueError, match="where argument must have dtype=bool; got dtype=float32"):
        jnp.add.reduce(x, where=np.ones(4, np.float32))
