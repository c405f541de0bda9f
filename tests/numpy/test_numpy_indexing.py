"""NumPy indexing on Arrays and tracers (x[idx]) and x.at[idx] updates against NumPy, JAX's
out-of-bounds rules (values from JAX 0.10.2), take & friends, errors, golden jaxprs."""

import functools
import re

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.errors import NonConcreteBooleanIndexError

from compiled import jit_together
from rule_checks import same_text

rng = np.random.default_rng(0)
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
X = jxkernel.device_put(x)
xi = np.arange(12, dtype=np.int32).reshape(3, 4)
i3 = np.array([1, 0, -1])


def assert_same(got, want):
    want = np.asarray(want)
    want = want.astype({np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}.get(
        want.dtype, want.dtype))
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


S = slice
INDICES = [
    1, -1, (1, 2), (-1, -2, -3), S(None), S(1, None), S(None, None, -1), S(None, None, 2),
    (S(None), S(3, 0, -2)), (Ellipsis, 1), (1, Ellipsis), (None,), (None, 0, None, S(1, 3)),
    (Ellipsis, None), (S(1, None), S(None, None, 2)), (0, S(5, 1, -1)), (S(10, 20),),
    i3, (S(None), i3), (i3, i3), (i3, S(None), 1), (1, i3), (i3, None, i3), (i3, Ellipsis),
    (Ellipsis, np.array([0, 3])), (0, S(None), np.array([[1], [2]])),
    (np.array([[0, 1], [1, 0]]), S(None), np.array([1, 2])), (S(None, None, 2), i3),
    (S(None), S(None, None, -1), i3), ([0, 1],), (np.int32(1), None), np.array(1),
    (S(None), np.array([True, False, True])), (1, x[0] > 5), (x > 5,), (np.array([True, False]),),
    (1, np.array([[True, False, True, False]] * 3)), (Ellipsis, [True, False, True, True]),
    (True,), (False,), (Ellipsis, False, 1), (0, True, None), (np.array([], np.int32),),
    (S(None), np.array([], np.int32)), (S(2, 2),),
]


def _id(idx):
    return re.sub(r"\s+", "", repr(idx))[:40]


@pytest.mark.parametrize("idx", INDICES, ids=_id)
def test_getitem_against_numpy(idx):
    assert_same(X[idx], x[idx])


JIT_INDICES = [(1, 2), (S(None, None, -1), 2), (i3, S(None), 1), (Ellipsis, None),
               (x > 5,), (True,)]


@functools.cache
def _getitem_jitted():
    """jit(lambda a: a[idx])(x) of every case of test_getitem_jit_matches_eager, compiled
    together (`jit_together`), by position in JIT_INDICES."""
    return jit_together(jxkernel, {i: ((lambda a, idx=idx: a[idx]), [x])
                                   for i, idx in enumerate(JIT_INDICES)})


@pytest.mark.parametrize("idx", JIT_INDICES, ids=_id)
def test_getitem_jit_matches_eager(idx):
    i = next(i for i, other in enumerate(JIT_INDICES) if other is idx)
    assert_same(_getitem_jitted()[i], X[idx])


def test_traced_indices():
    f = jxkernel.jit(lambda a, i: a[i, 1:3])
    for i in (0, 1, -1, -2):
        assert_same(f(x, i), x[i, 1:3])
    g = jxkernel.jit(lambda a, i: a[:, i])
    assert_same(g(x, i3), x[:, i3])
    h = jxkernel.jit(lambda a, i, j: a[i, ::-1, j])
    assert_same(h(x, 1, -1), x[1, ::-1, -1])
    assert_same(jxkernel.jit(lambda a, i: a[..., i])(x, np.array([[0, 3]])), x[..., [[0, 3]]])


def test_out_of_bounds_reads_clamp():
    # JAX: static ints clamp, traced ints clamp (dynamic_slice), array indices clamp (gather)
    assert_same(X[10], x[-1])
    assert_same(X[-10, 1], x[0, 1])
    assert_same(jxkernel.jit(lambda a, i: a[i])(x, 7), x[1])
    assert_same(jxkernel.jit(lambda a, i: a[i])(x, -7), x[0])
    assert_same(X[np.array([5, -7])], x[np.array([1, 0])])
    fill = jnp.arange(4.).at[np.array([5, -1, -5])].get(mode="fill")
    np.testing.assert_array_equal(np.asarray(fill), [np.nan, 3.0, np.nan])
    assert_same(jnp.asarray(xi).at[np.array([7])].get(mode="fill"),
                np.full((1, 4), np.iinfo(np.int32).min, np.int32))
    assert_same(jnp.asarray(xi).at[np.array([7])].get(mode="fill", fill_value=-1),
                np.full((1, 4), -1, np.int32))
    assert_same(jnp.asarray(xi).at[np.array([7])].get(mode="clip"), xi[[2]])
    assert_same(jnp.asarray(xi).at[-1].get(wrap_negative_indices=False, mode="fill",
                                           fill_value=0), np.zeros(4, np.int32))


def _np_update(idx, op, y, a=x):
    out = a.copy()
    {"set": lambda: out.__setitem__(idx, y), "add": lambda: np.add.at(out, idx, y),
     "subtract": lambda: np.subtract.at(out, idx, y),
     "multiply": lambda: np.multiply.at(out, idx, y),
     "min": lambda: np.minimum.at(out, idx, y), "max": lambda: np.maximum.at(out, idx, y)}[op]()
    return out


UPDATES = [
    ((1, S(None), 2), "set", 7.0), ((np.array([0, 0, 1]),), "add", 1.0),
    ((S(None), np.array([2, 2])), "subtract", np.float32(3)), ((x > 10,), "set", 0.0),
    ((Ellipsis, np.array([1, 1, 3])), "multiply", 2.0), ((0, S(None, None, -1)), "set",
                                                         np.arange(4, dtype=np.float32)),
    ((i3, i3), "min", -1.0), ((None, 1), "max", 100.0), ((S(None), 0, S(1, 3)), "add",
                                                        np.ones((2, 2), np.float32)),
]


@pytest.mark.parametrize("idx,op,y", UPDATES, ids=[f"{_id(u[0])}-{u[1]}" for u in UPDATES])
def test_at_updates_against_numpy(idx, op, y):
    assert_same(getattr(X.at[idx], op)(y), _np_update(idx, op, y))


def test_at_update_semantics():
    xa = jnp.asarray(xi)
    # cast back, with the warning JAX 0.10.2 gives for this line (its text)
    with pytest.warns(FutureWarning, match=r"^scatter inputs have incompatible types: cannot "
                      r"safely cast value from dtype=float32 to dtype=int32 with "
                      r"jax_numpy_dtype_promotion=standard\. In future JAX releases"):
        assert_same(xa.at[0, 0].set(2.7), _np_update((0, 0), "set", 2, xi))
    assert_same(xa.at[5].set(1), xi)                                          # dropped
    assert_same(xa.at[5].set(1, mode="clip"), _np_update((2,), "set", 1, xi))
    assert_same(xa.at[np.array([1, 1])].divide(2), xi.astype(np.float32) /
                np.array([[1], [4], [1]], np.float32))
    assert_same(xa.at[1].power(2), _np_update((1,), "set", xi[1] ** 2, xi))
    assert_same(xa.at[np.array([0, 0])].apply(lambda v: v * 2),
                _np_update((0,), "set", xi[0] * 4, xi))
    assert_same(xa.at[np.array([2, 0])].add(10, indices_are_sorted=False, unique_indices=True),
                _np_update((np.array([2, 0]),), "add", 10, xi))
    assert xa.at[0].mul(3).dtype == np.int32
    w = jnp.broadcast_to(jxkernel.device_put(1.0), (3,))
    assert w.at[0].set(5.0).weak_type                       # the operand's weak type stays
    assert_same(jxkernel.jit(lambda a, i, v: a.at[i].add(v))(xi, np.array([2, 2]), 1),
                _np_update((np.array([2, 2]),), "add", 1, xi))
    # values given as a list or tuple go through jnp.asarray, as in JAX
    row = [7, 8] + [9] * (xi.shape[1] - 2)
    assert_same(xa.at[1].set(row), _np_update((1,), "set", np.array(row), xi))
    assert_same(xa.at[1].min(tuple(row)), _np_update((1,), "set", np.minimum(xi[1], row), xi))
    assert_same(jxkernel.jit(lambda a, v: a.at[0].add([v] * xi.shape[1]))(xi, 2),
                _np_update((0,), "add", 2, xi))


def test_boolean_masks():
    m = x > 10
    assert_same(X[m], x[m])
    with pytest.raises(NonConcreteBooleanIndexError, match="Array boolean indices must be concrete"):
        jxkernel.jit(lambda a, m: a[m])(x, m)
    with pytest.raises(IndexError, match="boolean index did not match shape of indexed array in "
                                         r"index 0: got \(3,\), expected \[2\]"):
        X[np.array([True, False, True])]


@pytest.mark.parametrize("idx,exc,msg", [
    (1.0, TypeError, "Indexer must have integer or boolean type, got indexer with type float64"),
    (np.array([0.5]), TypeError, "Indexer must have integer or boolean type"),
    ("a", TypeError, "JAX does not support string indexing"),
    ((0, 0, 0, 0), IndexError, "Too many indices: array is 3-dimensional, but 4 were indexed"),
    ((Ellipsis, Ellipsis), IndexError, r"an index can only have a single ellipsis \('...'\)"),
    ([S(None), 0], TypeError, "Using a non-tuple sequence for multidimensional indexing"),
    (object(), IndexError, "only integers, slices"),
])
def test_index_errors(idx, exc, msg):
    with pytest.raises(exc, match=msg):
        X[idx]


def test_traced_slice_bounds_are_an_error():
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        jxkernel.jit(lambda a, i: a[i:])(x, 1)


def test_take_and_take_along_axis():
    a = np.arange(4, dtype=np.float32)
    got = np.asarray(jnp.take(a, np.array([5, -1, -5])))          # default: fill
    np.testing.assert_array_equal(got, [np.nan, 3.0, np.nan])
    assert_same(jnp.take(np.arange(4), np.array([5, -1])),
                np.array([np.iinfo(np.int32).min, 3], np.int32))
    for mode in ("clip", "wrap"):
        assert_same(jnp.take(x, np.array([[0, 5], [-1, 2]]), axis=2, mode=mode),
                    np.take(x, [[0, 5], [-1, 2]], axis=2, mode=mode))
    assert_same(jnp.take(x, np.array([3, 20]), mode="clip"), np.take(x, [3, 20], mode="clip"))
    idx = np.argsort(x, axis=1)[:, ::-1]
    assert_same(jnp.take_along_axis(x, idx, axis=1), np.take_along_axis(x, idx, axis=1))
    assert_same(jnp.take_along_axis(x, idx[:, :, :1], axis=1),
                np.take_along_axis(x, idx[:, :, :1], axis=1))
    assert_same(jnp.take_along_axis(x, np.array([0, 23]), axis=None), x.ravel()[[0, 23]])
    assert_same(jxkernel.jit(lambda a, i: jnp.take_along_axis(a, i, axis=-1))(x, idx),
                np.take_along_axis(x, idx, axis=-1))
    with pytest.raises(ValueError, match="indices and arr must have the same number of dim"):
        jnp.take_along_axis(x, np.array([0]), axis=0)
    with pytest.raises(TypeError, match="take_along_axis indices must be of integer type"):
        jnp.take_along_axis(x, x, axis=0)


def test_put_choose_and_index_helpers():
    want = x.copy()
    np.put(want, [0, 5], [-1.0, -2.0])
    assert_same(jnp.put(x, np.array([0, 5]), np.array([-1.0, -2.0], np.float32), inplace=False),
                want)
    with pytest.raises(ValueError, match="cannot modify arrays in-place"):
        jnp.put(x, 0, 1.0)
    want = xi.copy()
    np.put_along_axis(want, np.array([[1], [0], [3]]), -5, axis=1)
    assert_same(jnp.put_along_axis(xi, np.array([[1], [0], [3]]), -5, axis=1, inplace=False),
                want)
    choices = [np.arange(3), np.arange(3) * 10, np.arange(3) * 100]
    assert_same(jnp.choose(np.array([2, 0, 1]), choices), np.choose([2, 0, 1], choices))
    assert_same(jnp.choose(np.array([4, 0, -1]), choices, mode="clip"),
                np.choose([4, 0, -1], choices, mode="clip"))
    assert_same(jnp.choose(np.array([4, 0, -1]), choices, mode="wrap"),
                np.choose([4, 0, -1], choices, mode="wrap"))
    assert_same(X[jnp.ix_(np.array([1, 0]), np.array([2, 0]))], x[np.ix_([1, 0], [2, 0])])
    assert_same(jnp.indices((2, 3)), np.indices((2, 3)))
    assert_all = lambda got, want: [assert_same(g, w) for g, w in zip(got, want)]
    assert_all(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True))
    flat = np.array([1, 7, 23])
    assert_all(jnp.unravel_index(flat, (2, 3, 4)), np.unravel_index(flat, (2, 3, 4)))
    # JAX clips out-of-bounds flat indices instead of raising
    assert_all(jnp.unravel_index(np.array([-1, 12, 5, -13]), (3, 4)),
               ([2, 2, 1, 0], [3, 3, 1, 0]))
    mi = (np.array([0, 1]), np.array([2, 1]))
    assert_same(jnp.ravel_multi_index(mi, (2, 3)), np.ravel_multi_index(mi, (2, 3)))
    assert_same(jnp.ravel_multi_index(mi, (2, 3), order="F"),
                np.ravel_multi_index(mi, (2, 3), order="F"))
    assert_same(jnp.ravel_multi_index((np.array([3]), np.array([-1])), (2, 3), mode="clip"),
                np.ravel_multi_index((np.array([3]), np.array([-1])), (2, 3), mode="clip"))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jnp.ravel_multi_index((np.array([3]), np.array([0])), (2, 3))
    assert_all(jnp.diag_indices(3, 3), np.diag_indices(3, 3))
    assert_all(jnp.diag_indices_from(np.ones((2, 2))), np.diag_indices_from(np.ones((2, 2))))
    assert_all(jnp.tril_indices(3, 1, 4), np.tril_indices(3, 1, 4))
    assert_all(jnp.triu_indices(4, -1), np.triu_indices(4, -1))
    assert_all(jnp.triu_indices_from(xi, 1), np.triu_indices_from(xi, 1))
    assert_all(jnp.tril_indices_from(xi), np.tril_indices_from(xi))


_GATHER = ("GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
           "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
GOLDEN = {  # printed by JAX 0.10.2 for a f32[4,6] argument (and an i32[2] index)
    "x[1:, ::2]": (lambda a: a[1:, ::2], """{ lambda ; a:f32[4,6]. let
    b:f32[3,3] = slice[limit_indices=(4, 6) start_indices=(1, 0) strides=(1, 2)] a
  in (b,) }"""),
    "x[1]": (lambda a: a[1], """{ lambda ; a:f32[4,6]. let
    b:f32[1,6] = slice[limit_indices=(2, 6) start_indices=(1, 0) strides=None] a
    c:f32[6] = squeeze[dimensions=(0,)] b
  in (c,) }"""),
    "x[-1, 2]": (lambda a: a[-1, 2], """{ lambda ; a:f32[4,6]. let
    b:f32[1,1] = slice[limit_indices=(4, 3) start_indices=(3, 2) strides=None] a
    c:f32[] = squeeze[dimensions=(0, 1)] b
  in (c,) }"""),
    "x[::-1]": (lambda a: a[::-1], """{ lambda ; a:f32[4,6]. let b:f32[4,6] = rev[dimensions=(0,)] a in (b,) }"""),
    "x[None, ..., 1]": (lambda a: a[None, ..., 1], """{ lambda ; a:f32[4,6]. let
    b:f32[4,1] = slice[limit_indices=(4, 2) start_indices=(0, 1) strides=None] a
    c:f32[4] = squeeze[dimensions=(1,)] b
    d:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] c
  in (d,) }"""),
    "x[..., 3:1:-1]": (lambda a: a[..., 3:1:-1], """{ lambda ; a:f32[4,6]. let
    b:f32[4,2] = slice[limit_indices=(4, 4) start_indices=(0, 2) strides=None] a
    c:f32[4,2] = rev[dimensions=(1,)] b
  in (c,) }"""),
    "x[i]": (lambda a, i: a[i], """{ lambda ; a:f32[4,6] b:i32[2]. let
    c:bool[2] = lt b 0:i32[]
    d:i32[2] = add b 4:i32[]
    e:i32[2] = select_n c b d
    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[2,6] = gather[
      dimension_numbers=""" + _GATHER + """
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 6)
      unique_indices=False
    ] a f
  in (g,) }"""),
    "x.at[i].set(2.0)": (lambda a, i: a.at[i].set(2.0), """{ lambda ; a:f32[4,6] b:i32[2]. let
    c:bool[2] = lt b 0:i32[]
    d:i32[2] = add b 4:i32[]
    e:i32[2] = select_n c b d
    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[2,6] = broadcast_in_dim 2.0:f32[]
    h:f32[4,6] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr=None
    ] a f g
  in (h,) }"""),
    "x.at[1].add(2.0)": (lambda a: a.at[1].add(2.0), """{ lambda ; a:f32[4,6]. let
    b:i32[1] = broadcast_in_dim 1:i32[]
    c:f32[6] = broadcast_in_dim 2.0:f32[]
    d:f32[4,6] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=True
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }
    ] a b c
  in (d,) }"""),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_jaxprs(name):
    fn, want = GOLDEN[name]
    args = [np.ones((4, 6), np.float32), np.array([0, 2], np.int32)][:fn.__code__.co_argcount]
    got = str(jxkernel.make_jaxpr(fn)(*args))
    same_text(got, want)
