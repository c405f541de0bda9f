"""jnp sorting and searching against NumPy, JAX's results where they differ (NaN order,
partition layout; values from JAX 0.10.2), static `size=` under jit, errors, jaxprs."""

import functools

import numpy as np
import pytest
from compiled import jit_together

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.errors import ConcretizationTypeError
from rule_checks import same_text

rng = np.random.default_rng(0)
x = rng.integers(0, 5, (4, 6)).astype(np.float32)
x[1, 2] = np.nan
y = rng.integers(-2, 3, (3, 5)).astype(np.int32)


def assert_same(got, want, dtype=None):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, dtype)
        return
    got, want = np.asarray(got), np.asarray(want)
    if dtype is not None:
        want = want.astype(dtype)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@functools.cache
def _argsort_jitted():
    """jit(argsort)(y) of every case of test_sort_argsort, compiled together
    (compiled.jit_together: one program instead of three)."""
    return jit_together(jxkernel, {axis: (lambda a, axis=axis: jnp.argsort(a, axis), [y])
                                   for axis in (-1, 0, None)})


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_argsort(axis):
    assert_same(jnp.sort(x, axis), np.sort(x, axis))
    assert_same(jnp.argsort(x, axis), np.argsort(x, axis, kind="stable"), np.int32)
    assert_same(jnp.sort(y, axis, descending=True),
                np.flip(np.sort(y, axis), 0 if axis is None else axis))
    assert_same(_argsort_jitted()[axis],
                np.argsort(y, axis, kind="stable"), np.int32)


def test_descending_is_stable_and_puts_nan_first():
    v = np.array([3.0, np.nan, 1.0, 3.0, -0.0, 0.0, 2.0], np.float32)
    assert_same(jnp.argsort(v, descending=True), np.array([1, 0, 3, 6, 2, 4, 5]), np.int32)
    assert_same(jnp.sort(v, descending=True),
                np.array([np.nan, 3, 3, 2, 1, 0, -0.0], np.float32))
    assert jnp.argsort(y[0], descending=True, stable=False).shape == (5,)
    assert_same(jnp.argsort(y, dtype=np.int8), np.argsort(y, kind="stable"), np.int8)


def test_lexsort_and_sort_complex():
    k1, k2 = rng.integers(0, 3, 8), rng.integers(0, 3, 8)
    assert_same(jnp.lexsort((k1, k2)), np.lexsort((k1, k2)), np.int32)
    keys = rng.integers(0, 2, (3, 2, 5))
    assert_same(jnp.lexsort(keys, axis=-1), np.lexsort(keys, axis=-1), np.int32)
    assert_same(jnp.sort_complex(np.array([3, 1, 2])), np.array([1, 2, 3], np.complex64))
    assert_same(jnp.sort(np.array([1 + 2j, 1 + 1j, 0 + 5j], np.complex64)),
                np.array([5j, 1 + 1j, 1 + 2j], np.complex64))


def test_partition():
    p = np.array([5, 1, 4, 2, 3, 9, 0], np.int32)
    # JAX's layout: the kth smallest ascending, then the rest largest first (from top_k)
    assert_same(jnp.partition(p, 2), np.array([0, 1, 2, 9, 5, 4, 3], np.int32))
    assert_same(jnp.argpartition(p, 2), np.array([6, 1, 3, 0, 2, 4, 5]), np.int32)
    assert_same(jnp.partition(p.astype(np.uint8), 3), np.array([0, 1, 2, 3, 9, 5, 4], np.uint8))
    assert_same(jnp.partition(p, -2), np.array([0, 1, 2, 3, 4, 5, 9], np.int32))
    m = rng.standard_normal((3, 8)).astype(np.float32)
    part = np.asarray(jnp.partition(m, 4, axis=1))
    np.testing.assert_array_equal(part[:, 4], np.sort(m, 1)[:, 4])
    np.testing.assert_array_equal(np.sort(part[:, :4], 1), np.sort(m, 1)[:, :4])
    idx = np.asarray(jnp.argpartition(m, 3, axis=1))
    np.testing.assert_array_equal(np.take_along_axis(m, idx, 1)[:, 3], np.sort(m, 1)[:, 3])


def test_searchsorted():
    a = np.array([1, 2, 2, 3, 5, np.nan], np.float32)
    v = np.array([0, 2, 2.5, 5, 7, np.nan], np.float32)
    assert_same(jnp.searchsorted(a, v), np.array([0, 1, 3, 4, 5, 5]), np.int32)
    assert_same(jnp.searchsorted(a, v, side="right"), np.array([0, 3, 3, 5, 5, 6]), np.int32)
    assert_same(jnp.searchsorted(a, v.reshape(2, 3)), np.searchsorted(a, v.reshape(2, 3)),
                np.int32)
    assert_same(jnp.searchsorted(a, np.float32(2.5)), 3, np.int32)
    ai = np.array([4, 3, 5, 1, 2])
    assert_same(jnp.searchsorted(ai, np.array([0, 3, 8]), sorter=np.argsort(ai)),
                np.searchsorted(ai, [0, 3, 8], sorter=np.argsort(ai)), np.int32)
    f = jxkernel.jit(lambda a, v: jnp.searchsorted(a, v, side="right", method="compare_all"))
    assert_same(f(a[:5], v[:5]), np.searchsorted(a[:5], v[:5], side="right"), np.int32)


def test_nonzero_family():
    assert_same(jnp.nonzero(y), np.nonzero(y), np.int32)
    nz = np.nonzero(y)
    assert_same(jnp.nonzero(y, size=15, fill_value=-1),
                tuple(np.r_[n, [-1] * (15 - len(n))] for n in nz), np.int32)
    assert_same(jnp.nonzero(y, size=3), tuple(n[:3] for n in nz), np.int32)
    assert_same(jnp.nonzero(np.array([[0, 2], [3, 0]]), size=3, fill_value=(7, 8)),
                (np.array([0, 1, 7]), np.array([1, 0, 8])), np.int32)
    assert_same(jxkernel.jit(lambda t: jnp.nonzero(t, size=5))(y), tuple(n[:5] for n in nz),
                np.int32)
    assert_same(jnp.flatnonzero(y), np.flatnonzero(y), np.int32)
    assert_same(jnp.argwhere(y), np.argwhere(y), np.int32)
    assert_same(jnp.argwhere(y, size=2), np.argwhere(y)[:2], np.int32)
    assert jnp.argwhere(np.float32(3)).shape == (1, 0)
    assert jnp.argwhere(np.float32(0)).shape == (0, 0)
    assert_same(jnp.extract(y > 0, y), np.extract(y > 0, y))
    assert_same(jnp.extract(y > 0, y, size=8, fill_value=9),
                np.r_[np.extract(y > 0, y), [9] * (8 - (y > 0).sum())].astype(np.int32))
    assert_same(jnp.compress(np.array([True, False, True]), y, axis=0),
                np.compress([True, False, True], y, axis=0))
    assert_same(jnp.compress(np.array([True, False]), np.arange(6).reshape(3, 2), axis=1,
                             size=2, fill_value=-1), np.array([[0, -1], [2, -1], [4, -1]]),
                np.int32)
    # JAX's extract is compress of the raveled two: a condition of another length truncates
    # (jnp.extract's docstring examples); entries past the array are an error only when true
    x = np.arange(1, 7, dtype=np.int32)
    assert_same(jnp.extract(np.array([False, True]), x), np.array([2], np.int32))
    assert_same(jnp.extract(np.array([True, False, True] + [False] * 5), x), np.array([1, 3], np.int32))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.compress(np.array([True] * 7), x)
    assert_same(jnp.isin(y, np.array([0, 2])), np.isin(y, [0, 2]))
    assert_same(jnp.isin(y, np.array([0, 2]), invert=True), np.isin(y, [0, 2], invert=True))


def test_unique():
    u = np.array([3, 1, 3, 2, 1, 1])
    assert_same(jnp.unique(u), np.unique(u), np.int32)
    assert_same(jnp.unique(u, True, True, True), np.unique(u, True, True, True), np.int32)
    m = np.array([[3, 1], [3, 1], [0, 5]])
    assert_same(jnp.unique(m, return_inverse=True, return_counts=True, axis=0),
                np.unique(m, return_inverse=True, return_counts=True, axis=0), np.int32)
    values, inverse = jnp.unique(m, return_inverse=True)
    assert_same(inverse, np.unique(m, return_inverse=True)[1].reshape(m.shape), np.int32)
    assert_same(jnp.unique(u, size=5, fill_value=-1, return_counts=True),
                (np.array([1, 2, 3, -1, -1]), np.array([3, 1, 2, 0, 0])), np.int32)
    # without fill_value, JAX pads with the smallest value (and its first index)
    assert_same(jnp.unique(u, size=5, return_index=True),
                (np.array([1, 2, 3, 1, 1]), np.array([1, 3, 0, 1, 1])), np.int32)
    assert_same(jxkernel.jit(lambda t: jnp.unique(t, size=4))(u), np.array([1, 2, 3, 1]),
                np.int32)
    n = np.array([np.nan, 1.0, np.nan, 0.0], np.float32)
    assert_same(jnp.unique(n), np.array([0.0, 1.0, np.nan], np.float32))
    assert_same(jnp.unique(n, equal_nan=False), np.array([0.0, 1.0, np.nan, np.nan], np.float32))
    r = jnp.unique_all(np.array([3, 1, 3]))
    assert type(r).__name__ == "_UniqueAllResult"
    assert_same(tuple(r), (np.array([1, 3]), np.array([1, 0]), np.array([1, 0, 1]),
                           np.array([1, 2])), np.int32)
    assert_same(jnp.unique_counts(np.array([3, 1, 3])).counts, np.array([1, 2]), np.int32)
    assert_same(jnp.unique_inverse(m).inverse_indices, np.array([[2, 1], [2, 1], [0, 3]]),
                np.int32)
    assert_same(jnp.unique_values(u), np.unique(u), np.int32)


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: jxkernel.jit(jnp.nonzero)(np.ones(3)), ConcretizationTypeError,
     "The size argument of jnp.nonzero must be statically specified"),
    (lambda: jxkernel.jit(jnp.unique)(np.ones(3)), ConcretizationTypeError,
     "The error arose for the first argument of jnp.unique"),
    (lambda: jnp.nonzero(np.float32(1)), ValueError, "Calling nonzero on 0d arrays is not allowed"),
    (lambda: jnp.sort(np.ones(3), kind="stable"), TypeError,
     "'kind' argument to sort is not supported"),
    (lambda: jnp.searchsorted(np.ones((2, 2)), 1.0), ValueError, "a should be 1-dimensional"),
    (lambda: jnp.lexsort(()), TypeError, "need sequence of keys with len > 0 in lexsort"),
    (lambda: jnp.lexsort((np.ones(2), np.ones(3))), ValueError,
     "all keys need to be the same shape"),
    (lambda: jnp.unique(np.zeros(0), size=2), ValueError, "fill_value must be specified"),
])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_jaxprs():
    # JAX 0.10.2's texts: argsort and sort are jits of their own (`jit[name=argsort]`)
    got = str(jxkernel.make_jaxpr(lambda a: jnp.argsort(a, descending=True))(
        np.ones(4, np.float32)))
    assert got == """{ lambda ; a:f32[4]. let
    b:i32[4] = jit[
      name=argsort
      jaxpr={ lambda ; a:f32[4]. let
          c:i32[4] = iota[dimension=0 dtype=int32 shape=(4,) sharding=None] 
          d:f32[4] = rev[dimensions=(0,)] a
          e:i32[4] = rev[dimensions=(0,)] c
          f:f32[4] g:i32[4] = sort[dimension=0 is_stable=True num_keys=1] d e
          b:i32[4] = rev[dimensions=(0,)] g
        in (b,) }
    ] a
  in (b,) }"""
    got = str(jxkernel.make_jaxpr(lambda a: jnp.sort(a, axis=0))(np.ones((4, 2), np.float32)))
    same_text(got, """{ lambda ; a:f32[4,2]. let
    b:f32[4,2] = jit[
      name=sort
      jaxpr={ lambda ; a:f32[4,2]. let
          b:f32[4,2] = sort[dimension=0 is_stable=True num_keys=1] a
        in (b,) }
    ] a
  in (b,) }""")
