"""Slicing and indexing primitives (lax/slicing.py) against NumPy:
eager, under jit, staged (checked jaxprs), printed as JAX 0.10.2 prints them,
out-of-bounds behaviour of every mode, and every shape error with its message.

Gather and scatter are checked against small loop implementations of XLA's semantics
(`np_gather`, `np_scatter`) that were cross-checked against JAX 0.10.2.

Their batching, jvp and transpose rules: the last part, on tests/support/rule_checks.py's
harness."""
import functools
import itertools

import numpy as np
import pytest

import jxkernel
import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.core.primitive import transpose_rules
from jxkernel.transforms.ad_util import UndefinedPrimal, float0
from compiled import jit_together
from lowered import run_lowered
from rule_checks import (BF16, Case, case_tests, check_exact, close, errors_test,
                         floats, ints, prints_as_jax_test, sum_all, unique_rows)

F32 = np.float32
GD, SD, Mode = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers, lax.GatherScatterMode


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(1, 9, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.integers(-4, 5, shape) + 1j * rng.integers(-4, 5, shape)).astype(dtype)
    return rng.integers(-8, 9, shape).astype(dtype)        # exact in every float type


# ------------------------------------------------------------------ slice
SLICES = [  # (operand shape, start, limit, strides)
    ((6,), (1,), (5,), None),
    ((6,), (1,), (6,), (2,)),
    ((6,), (0,), (6,), (4,)),
    ((4, 5), (1, 0), (3, 5), (1, 2)),
    ((4, 5), (0, 0), (4, 5), None),
    ((4, 5), (2, 3), (2, 5), (1, 1)),            # empty
    ((2, 3, 4), (0, 1, 1), (2, 3, 4), (2, 1, 3)),
    ((), (), (), None),
]


def _slice_call(k):
    """(function, [x]) of test_slice's case k."""
    shape, start, limit, strides = SLICES[k]
    dtype = [F32, np.int8, np.bool_, BF16, np.complex64, np.uint32, np.float16, np.int32][k]
    return (lambda x: lax.slice(x, start, limit, strides)), [rand(shape, dtype, k)]


@functools.cache
def _slices_jitted():
    """jit of every case of test_slice, compiled together (`jit_together`): its eager
    programs are shared with other tests, its jitted ones were a compile each."""
    return jit_together(jax, {k: _slice_call(k) for k in range(len(SLICES))})


@pytest.mark.parametrize("k", range(len(SLICES)))
def test_slice(k):
    shape, start, limit, strides = SLICES[k]
    fun, (x,) = _slice_call(k)
    index = tuple(slice(a, b, s) for a, b, s in zip(start, limit, strides or [1] * len(shape)))
    check_exact(fun, x[index], x, jitted=_slices_jitted()[k])


def test_slice_in_dim_and_index_in_dim():
    x = rand((4, 5), F32)
    check_exact(lambda x: lax.slice_in_dim(x, 1, -1, 2, axis=1), x[:, 1:-1:2], x)
    check_exact(lambda x: lax.slice_in_dim(x, None, None), x, x)
    check_exact(lambda x: lax.slice_in_dim(x, -3, None, axis=0), x[-3:], x)
    check_exact(lambda x: lax.index_in_dim(x, -1, 1), x[:, -1:], x)
    check_exact(lambda x: lax.index_in_dim(x, 2, 0, keepdims=False), x[2], x)


# ------------------------------------------------------------------ dynamic_slice
def np_dynamic_slice(x, starts, sizes):
    """XLA's DynamicSlice: each start clamped into [0, dim - size]."""
    starts = [min(max(int(s), 0), d - z) for s, d, z in zip(starts, x.shape, sizes)]
    return x[tuple(slice(s, s + z) for s, z in zip(starts, sizes))]


def np_dynamic_update_slice(x, u, starts):
    starts = [min(max(int(s), 0), d - z) for s, d, z in zip(starts, x.shape, u.shape)]
    y = x.copy()
    y[tuple(slice(s, s + z) for s, z in zip(starts, u.shape))] = u
    return y


DYNAMIC = [  # (operand shape, starts, slice sizes, dtype): negative starts count from the end
    ((6,), (2,), (3,), F32),
    ((6,), (5,), (3,), np.int32),                 # clamped down to 3
    ((6,), (-2,), (2,), np.bool_),                # -2 -> 4
    ((6,), (-9,), (2,), BF16),                    # -9 -> -3 -> clamped to 0
    ((4, 5), (1, 3), (2, 2), np.float16),
    ((4, 5), (7, -1), (4, 1), np.uint8),          # full dim: start ignored
    ((4, 5), (0, 0), (0, 2), np.complex64),       # empty slice
    ((2, 3, 4), (1, 1, 1), (1, 2, 3), np.int8),
    ((), (), (), F32),
]


def _wrap(starts, shape):
    return [s + d if s < 0 else s for s, d in zip(starts, shape)]


def _dynamic_calls(k):
    """[(function, args)] of test_dynamic_slice's case k: static Python ints, then traced
    int32 indices (negative ones wrap with a select); slice, then update."""
    shape, starts, sizes, dtype = DYNAMIC[k]
    x, u = rand(shape, dtype, k), rand(sizes, dtype, k + 1)
    idx = [np.int32(s) for s in starts]
    return [((lambda x: lax.dynamic_slice(x, starts, sizes)), [x]),
            ((lambda x, *i: lax.dynamic_slice(x, i, sizes)), [x, *idx]),
            ((lambda x, u: lax.dynamic_update_slice(x, u, starts)), [x, u]),
            ((lambda x, u, *i: lax.dynamic_update_slice(x, u, i)), [x, u, *idx])]


@functools.cache
def _dynamic_jitted():
    """jit of every call of test_dynamic_slice, compiled together (`jit_together`)."""
    return jit_together(jax, {(k, j): call for k in range(len(DYNAMIC))
                              for j, call in enumerate(_dynamic_calls(k))})


@pytest.mark.parametrize("k", range(len(DYNAMIC)))
def test_dynamic_slice(k):
    shape, starts, sizes, _ = DYNAMIC[k]
    calls = _dynamic_calls(k)
    x, u = calls[2][1]
    wants = [np_dynamic_slice(x, _wrap(starts, shape), sizes)] * 2 + \
        [np_dynamic_update_slice(x, u, _wrap(starts, shape))] * 2
    for j, ((fun, args), want) in enumerate(zip(calls, wants)):
        check_exact(fun, want, *args, jitted=_dynamic_jitted()[k, j])


INDEX_DTYPES = [np.int8, np.uint8, np.int16, np.uint32, np.int32]


def _index_dtype_calls(index_dtype):
    """[(function, [x, start], expected)] of test_dynamic_slice_index_dtypes' case."""
    x = rand((300,), F32)
    calls = []
    for start in (0, 5, 127, 250):
        i = np.asarray(start).astype(index_dtype)
        want = np_dynamic_slice(x, _wrap([int(i)], x.shape), (60,))   # int8 250 is -6
        calls.append(((lambda x, i: lax.dynamic_slice(x, (i,), (60,))), [x, i], want))
    if np.dtype(index_dtype).kind == "i":
        i = np.asarray(-3, index_dtype)                   # counts from the end: 297 -> clamped
        calls.append(((lambda x, i: lax.dynamic_slice(x, (i,), (2,))), [x, i], x[297:299]))
    return calls


@functools.cache
def _index_dtypes_jitted():
    """jit of every call of test_dynamic_slice_index_dtypes, compiled together."""
    return jit_together(jax, {(d, j): (fun, args) for d in INDEX_DTYPES
                              for j, (fun, args, _) in enumerate(_index_dtype_calls(d))})


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_dynamic_slice_index_dtypes(index_dtype):
    for j, (fun, args, want) in enumerate(_index_dtype_calls(index_dtype)):
        check_exact(fun, want, *args, jitted=_index_dtypes_jitted()[index_dtype, j])


def test_dynamic_slice_start_indices_as_array():
    x = rand((4, 5), F32)
    check_exact(lambda x, i: lax.dynamic_slice(x, i, (2, 2)), x[1:3, 2:4], x,
                np.array([1, 2], np.int32))
    check_exact(lambda x: lax.dynamic_slice(x, np.array([-1, 0]), (1, 5)), x[3:], x)


def test_dynamic_slice_allow_negative_indices_false():
    x = rand((5,), F32)
    i = jxkernel.device_put(np.int32(-1))                 # not wrapped: clamped to 0
    check_exact(lambda x, i: lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False),
                x[:2], x, i)
    with pytest.raises(ValueError, match="Index -1 is out of bounds for dimension 5 if "
                                         "allow_negative_indices=False"):
        lax.dynamic_slice(x, (-1,), (2,), allow_negative_indices=False)


def test_in_dim_wrappers():
    x, i = rand((4, 5), np.int32), np.int32(3)
    check_exact(lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1), x[:, 3:5], x, i)
    check_exact(lambda x, i: lax.dynamic_slice_in_dim(x, i, 3), x[1:4], x, i)              # clamped
    check_exact(lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False), x[:, 3], x, i)
    check_exact(lambda x, i: lax.dynamic_index_in_dim(x, i), x[3:4], x, i)
    check_exact(lambda x: lax.dynamic_index_in_dim(x, -1, 0, False), x[-1], x)
    row = rand((5,), np.int32, 1)
    want = x.copy()
    want[3] = row
    check_exact(lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0), want, x, row, i)
    check_exact(lambda x, u, i: lax.dynamic_update_index_in_dim(x, lax.expand_dims(u, (0,)), i, 0),
                want, x, row, i)
    want = x.copy()
    want[:, 2:4] = x[:, :2] * 10
    check_exact(lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 1), want, x, x[:, :2] * 10,
                np.int32(2))


# ------------------------------------------------------------------ gather
def np_gather(x, idx, dn, slice_sizes, mode, fill_value=None):
    """XLA's Gather (index vector last) by loops; out-of-bounds windows are clamped (CLIP,
    PROMISE_IN_BOUNDS) or filled (FILL_OR_DROP)."""
    batch_shape = idx.shape[:-1]
    out_rank = len(dn.offset_dims) + len(batch_shape)
    window_dims = [d for d in range(x.ndim)
                   if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    kept = iter(slice_sizes[d] for d in window_dims)
    batch = iter(batch_shape)
    out_shape = tuple(next(kept) if d in dn.offset_dims else next(batch) for d in range(out_rank))
    out = np.zeros(out_shape, x.dtype)
    batch_out = [d for d in range(out_rank) if d not in dn.offset_dims]
    for o in itertools.product(*map(range, out_shape)):
        g = tuple(o[d] for d in batch_out)
        start = [0] * x.ndim
        for k, d in enumerate(dn.start_index_map):
            start[d] = int(idx[g + (k,)])
        in_bounds = all(0 <= start[d] <= x.shape[d] - slice_sizes[d] for d in dn.start_index_map)
        for od, ib in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
            start[od] = g[ib]
        start = [min(max(s, 0), n - z) for s, n, z in zip(start, x.shape, slice_sizes)]
        full = list(start)
        for k, d in enumerate(window_dims):
            full[d] += o[dn.offset_dims[k]]
        out[o] = fill_value if mode == "fill" and not in_bounds else x[tuple(full)]
    return out


GATHERS = [  # (operand shape, indices, dimension numbers, slice sizes)
    ((5,), [[4], [5], [-1], [0]], GD((), (0,), (0,)), (1,)),                       # x[i]
    ((5, 3), [[1], [7], [0]], GD((1,), (0,), (0,)), (1, 3)),                       # rows
    ((4, 5), [[0, 4], [3, 5], [-1, 2]], GD((), (0, 1), (0, 1)), (1, 1)),           # points
    ((6, 5), [[0], [3], [4], [-2]], GD((1, 2), (), (1,)), (6, 2)),                 # windows
    ((5, 4), [[[1], [2], [9]], [[0], [4], [3]]], GD((1,), (0,), (0,)), (1, 4)),    # offset mid
    ((3, 5), [[[1], [4]], [[0], [7]], [[3], [2]]],                                 # batching
     GD((), (1,), (1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1)),
    ((2, 4, 3), [[[0], [3]], [[2], [-1]]],                                         # batch, window
     GD((2,), (1,), (1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1, 2)),
]
GATHER_DTYPES = [F32, np.int32, np.bool_, BF16, np.uint8, np.complex64, np.float16]


GATHER_MODES = ["clip", "fill", "promise_in_bounds"]


def _gather_call(k, mode):
    """(function, [x, indices]) of test_gather's case (k, mode)."""
    shape, idx, dn, sizes = GATHERS[k]
    x, idx = rand(shape, GATHER_DTYPES[k], k), np.asarray(idx, np.int32)
    if mode == "promise_in_bounds":      # out-of-bounds is implementation-defined: stay inside
        idx = np.clip(idx, 0, None) % np.array([shape[d] - sizes[d] + 1 for d in dn.start_index_map])
    return (lambda x, i: lax.gather(x, i, dn, sizes, mode=mode)), [x, idx]


@functools.cache
def _gathers_jitted():
    """jit of every case of test_gather, compiled together (`jit_together`)."""
    return jit_together(jax, {(k, mode): _gather_call(k, mode) for k in range(len(GATHERS))
                              for mode in GATHER_MODES})


@pytest.mark.parametrize("k", range(len(GATHERS)))
@pytest.mark.parametrize("mode", GATHER_MODES)
def test_gather(k, mode):
    _, _, dn, sizes = GATHERS[k]
    dtype = np.dtype(GATHER_DTYPES[k])
    fun, (x, idx) = _gather_call(k, mode)
    # JAX's default fill: NaN, the most negative int, the largest unsigned int, True
    fill = (True if dtype == np.bool_ else np.iinfo(dtype).min if dtype.kind == "i" else
            np.iinfo(dtype).max if dtype.kind == "u" else np.nan)
    want = np_gather(x, idx, dn, sizes, mode, fill)
    check_exact(fun, want, x, idx, jitted=_gathers_jitted()[k, mode])


def test_gather_fill_value_and_index_dtypes():
    x = rand((300,), np.int32)
    dn = GD((), (0,), (0,))
    fill = lambda x, i: lax.gather(x, i, dn, (1,), mode="fill", fill_value=7)
    clip = lambda x, i: lax.gather(x, i, dn, (1,), mode=Mode.CLIP)
    indices = {d: np.array([[0], [5], [127], [-3], [299]]).astype(d)
               for d in (np.int8, np.uint8, np.int16, np.uint32, np.int64)}
    # the jitted calls as one program (`jit_together`): 10 compiles -> 1
    jitted = jit_together(jax, {(d, f): (f, [x, idx]) for d, idx in indices.items()
                                for f in (fill, clip)})
    for d, idx in indices.items():
        want = np_gather(x, idx.astype(np.int64), dn, (1,), "fill", 7)
        check_exact(fill, want, x, idx, jitted=jitted[d, fill])
        want = np_gather(x, idx.astype(np.int64), dn, (1,), "clip")
        check_exact(clip, want, x, idx, jitted=jitted[d, clip])


def test_gather_defaults_and_empty():
    x = rand((5,), F32)
    staged = jxkernel.make_jaxpr(lambda x, i: lax.gather(x, i, GD((), (0,), (0,)), (1,)))(
        x, np.zeros((2, 1), np.int32))
    assert staged.eqns[0].params["mode"] is Mode.PROMISE_IN_BOUNDS
    assert staged.eqns[0].params["fill_value"] is None
    check_exact(lambda x, i: lax.gather(x, i, GD((), (0,), (0,)), (1,), mode="fill"),
                np.zeros((0,), F32), x, np.zeros((0, 1), np.int32))
    # lists are accepted and stored as tuples, so params stay hashable
    out = lax.gather(x, np.array([[2]]), GD([], [0], [0]), [1], mode="clip")
    np.testing.assert_array_equal(np.asarray(out), x[2:3])


# ------------------------------------------------------------------ scatter
def np_scatter(x, idx, upd, dn, combine, mode):
    """XLA's Scatter (index vector last) by loops. Windows not wholly in bounds are dropped
    (FILL_OR_DROP) or clamped into bounds first (CLIP)."""
    x = x.copy()
    scatter_dims = [d for d in range(upd.ndim) if d not in dn.update_window_dims]
    window_dims = [d for d in range(x.ndim)
                   if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    window = [1] * x.ndim
    for k, d in enumerate(window_dims):
        window[d] = upd.shape[dn.update_window_dims[k]]
    for u in itertools.product(*map(range, upd.shape)):
        g = tuple(u[d] for d in scatter_dims)
        start = [0] * x.ndim
        for k, d in enumerate(dn.scatter_dims_to_operand_dims):
            start[d] = int(idx[g + (k,)])
            if mode == "clip":
                start[d] = min(max(start[d], 0), x.shape[d] - window[d])
        for od, ib in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            start[od] = g[ib]
        if not all(0 <= s and s + w <= n for s, w, n in zip(start, window, x.shape)):
            continue
        full = list(start)
        for k, d in enumerate(window_dims):
            full[d] += u[dn.update_window_dims[k]]
        with np.errstate(over="ignore"):        # uint8 arithmetic wraps, as in XLA
            x[tuple(full)] = combine(x[tuple(full)], upd[u])
    return x


SCATTERS = [
    # (operand shape, indices with out-of-bounds ones, indices in bounds, updates shape, dnums);
    # no two updates hit one element, even after clipping, so `scatter` (set) is deterministic
    ((5,), [[3], [5], [-1], [1]], [[3], [4], [0], [1]], (4,), SD((), (0,), (0,))),
    ((5, 3), [[1], [7], [0]], [[1], [4], [0]], (3, 3), SD((1,), (0,), (0,))),
    ((4, 5), [[0, 4], [3, 5], [-1, 2], [2, 2]], [[0, 4], [3, 4], [0, 2], [2, 2]], (4,),
     SD((), (0, 1), (0, 1))),
    ((6, 7), [[2], [9], [-5]], [[2], [5], [0]], (3, 6, 2), SD((1, 2), (), (1,))),      # windows
    ((3, 5), [[[1], [4]], [[0], [7]], [[3], [2]]], [[[1], [4]], [[0], [4]], [[3], [2]]], (3, 2),
     SD((), (1,), (1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))),
]
SCATTER_FUNS = {
    "scatter": (lax.scatter, lambda a, b: b),
    "scatter_add": (lax.scatter_add, lambda a, b: a + b),
    "scatter_sub": (lax.scatter_sub, lambda a, b: a - b),
    "scatter_mul": (lax.scatter_mul, lambda a, b: a * b),
    "scatter_min": (lax.scatter_min, min),
    "scatter_max": (lax.scatter_max, max),
}


def _scatter_calls(name, k):
    """{mode: (function, [x, indices, updates])} of test_scatter's case (name, k)."""
    shape, idx, inside, upd_shape, dn = SCATTERS[k]
    fun = SCATTER_FUNS[name][0]
    dtype = [F32, np.int32, np.float16, BF16, np.uint8][k]
    x, upd = rand(shape, dtype, k), rand(upd_shape, dtype, k + 1)
    idx, inside = np.asarray(idx, np.int32), np.asarray(inside, np.int32)
    calls = {mode: ((lambda x, i, u, mode=mode: fun(x, i, u, dn, mode=mode)), [x, idx, upd])
             for mode in ("clip", "fill")}       # (no mode is "fill": test_scatter_dtypes)
    calls["promise_in_bounds"] = ((lambda x, i, u: fun(x, i, u, dn, mode="promise_in_bounds",
                                                       unique_indices=True)), [x, inside, upd])
    return calls


@functools.cache
def _scatter_jitted():
    """jit of every case and mode of test_scatter, compiled together (`jit_together`)."""
    return jit_together(jax, {(name, k, mode): call for name in SCATTER_FUNS
                              for k in range(len(SCATTERS))
                              for mode, call in _scatter_calls(name, k).items()})


@pytest.mark.parametrize("k", range(len(SCATTERS)))
@pytest.mark.parametrize("name", list(SCATTER_FUNS))
def test_scatter(name, k):
    dn = SCATTERS[k][4]
    combine = SCATTER_FUNS[name][1]
    for mode, (fun, (x, idx, upd)) in _scatter_calls(name, k).items():
        want = np_scatter(x, idx, upd, dn, combine, None if mode == "promise_in_bounds" else mode)
        check_exact(fun, want, x, idx, upd, jitted=_scatter_jitted()[name, k, mode])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.complex64])
def test_scatter_dtypes(dtype):
    x, upd = rand((5,), dtype), rand((3,), dtype, 1)
    idx, dn = np.array([[3], [0], [9]], np.int32), SD((), (0,), (0,))
    check_exact(lambda x, i, u: lax.scatter(x, i, u, dn),
                np_scatter(x, idx, upd, dn, lambda a, b: b, None), x, idx, upd)
    if dtype != np.bool_:
        check_exact(lambda x, i, u: lax.scatter_add(x, i, u, dn),
                    np_scatter(x, idx, upd, dn, lambda a, b: a + b, None), x, idx, upd)
    else:
        check_exact(lambda x, i, u: lax.scatter_max(x, i, u, dn),
                    np_scatter(x, idx, upd, dn, max, None), x, idx, upd)


def test_scatter_add_accumulates_duplicates():
    x, dn = np.zeros(4, F32), SD((), (0,), (0,))
    idx = np.array([[1], [1], [3], [1], [-1]], np.int32)
    check_exact(lambda x, i, u: lax.scatter_add(x, i, u, dn), np.array([0, 6, 0, 4], F32),
                x, idx, np.array([1, 2, 4, 3, 5], F32))
    check_exact(lambda x, i, u: lax.scatter_add(x, i, u, dn, mode="clip"),
                np.array([5, 6, 0, 4], F32), x, idx, np.array([1, 2, 4, 3, 5], F32))


@pytest.mark.parametrize("scatter", [lax.scatter_add, lax.scatter_sub])
@pytest.mark.xla_only("XLA text")
def test_gpu_lowering_splits_a_complex128_scatter_add_into_its_parts(scatter):
    """For the GPU, as JAX lowers it there, a complex128 scatter-add (or -sub) is two float64
    scatters, of the real and of the imaginary parts; the same values, clipped indices and
    duplicates included. complex64, and every dtype on the CPU, stay one scatter."""
    dn = SD((1,), (0,), (0,))
    idx = np.array([[1], [4], [1], [9]], np.int32)        # a duplicate, one clipped to 4
    f = lambda x, u: scatter(x, idx, u, dn, mode="clip")
    with jxkernel.enable_x64(True):
        x, u = rand((5, 3), np.complex128), rand((4, 3), np.complex128, seed=1)
        gpu_text, got = run_lowered(f, (x, u), "gpu")
        cpu_text, want = run_lowered(f, (x, u), "cpu")
        single_text, _ = run_lowered(f, (x.astype(np.complex64), u.astype(np.complex64)), "gpu")
    want_np = x.copy()
    for i, row in zip(np.minimum(idx[:, 0], 4), u):
        want_np[i] += row if scatter is lax.scatter_add else -row
    np.testing.assert_array_equal(want, want_np)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.complex128
    assert gpu_text.count('"stablehlo.scatter"') == 2 and "stablehlo.complex" in gpu_text
    assert cpu_text.count('"stablehlo.scatter"') == 1 and "stablehlo.real" not in cpu_text
    assert single_text.count('"stablehlo.scatter"') == 1


def test_scatter_update_jaxpr_is_shared():
    """Equal scatters have equal params (the update jaxpr is cached), so eager calls reuse
    one executable and jit caches hit."""
    dn, x, i, u = SD((), (0,), (0,)), np.zeros(3, F32), np.array([[0]]), np.ones(1, F32)
    a = jxkernel.make_jaxpr(lambda x: lax.scatter_add(x, i, u, dn))(x).eqns[0].params
    b = jxkernel.make_jaxpr(lambda x: lax.scatter_add(x, i, u, dn))(x).eqns[0].params
    assert a == b and hash(tuple(a.items())) == hash(tuple(b.items()))


def test_scatter_add_bool_is_an_error():
    with pytest.raises(TypeError, match="add does not accept dtype bool"):
        lax.scatter_add(np.zeros(3, bool), np.array([[0]]), np.ones(1, bool), SD((), (0,), (0,)))


def test_modes():
    assert Mode.from_any(None) is Mode.FILL_OR_DROP
    assert Mode.from_any("drop") is Mode.FILL_OR_DROP is Mode.from_any("fill")
    assert Mode.from_any("clip") is Mode.CLIP
    assert Mode.from_any("promise_in_bounds") is Mode.PROMISE_IN_BOUNDS
    assert str(Mode.CLIP) == "GatherScatterMode.CLIP"
    with pytest.raises(ValueError, match='Unknown gather mode "bogus"'):
        Mode.from_any("bogus")


# ------------------------------------------------------------------ printing (JAX 0.10.2's text)
X23, X53, I21 = np.ones((2, 3), F32), np.ones((5, 3), F32), np.zeros((2, 1), np.int32)
U23 = np.ones((2, 3), F32)
_SCATTER_DN = ("ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
               "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
               "scatter_indices_batching_dims=())")
_GATHER_DN = ("GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
              "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
GOLDEN = [
    (lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2)), [X23, np.int32(1)], """\
{ lambda ; a:f32[2,3] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 2:i32[]
    e:i32[] = select_n c b d
    f:f32[1,2] = dynamic_slice[slice_sizes=(1, 2)] a e 1:i32[]
  in (f,) }"""),
    # a Python int index is weakly typed: made strong before the wrap-around add, as in JAX
    (lambda x, i: lax.dynamic_slice(x, (i, 1), (1, 2)), [X23, 1], """\
{ lambda ; a:f32[2,3] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    e:i32[] = add d 2:i32[]
    f:i32[] = select_n c b e
    g:f32[1,2] = dynamic_slice[slice_sizes=(1, 2)] a f 1:i32[]
  in (g,) }"""),
    (lambda x, i: lax.dynamic_update_slice(x, lax.broadcast_in_dim(F32(1), (1, 2), ()), (i, 1)),
     [X23, np.int32(1)], """\
{ lambda ; a:f32[2,3] b:i32[]. let
    c:f32[1,2] = broadcast_in_dim 1.0:f32[]
    d:bool[] = lt b 0:i32[]
    e:i32[] = add b 2:i32[]
    f:i32[] = select_n d b e
    g:f32[2,3] = dynamic_update_slice a c f 1:i32[]
  in (g,) }"""),
    (lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, 1), [X23, np.int32(1)], """\
{ lambda ; a:f32[2,3] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 3:i32[]
    e:i32[] = select_n c b d
    f:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] a 0:i32[] e
  in (f,) }"""),
    (lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3)), [X53, I21], f"""\
{{ lambda ; a:f32[5,3] b:i32[2,1]. let
    c:f32[2,3] = gather[
      dimension_numbers={_GATHER_DN}
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
  in (c,) }}"""),
    (lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3), mode="fill"), [X53, I21], f"""\
{{ lambda ; a:f32[5,3] b:i32[2,1]. let
    c:f32[2,3] = gather[
      dimension_numbers={_GATHER_DN}
      fill_value=nan
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
  in (c,) }}"""),
    (lambda x, i: lax.scatter_add(x, i, lax.broadcast_in_dim(F32(1), (2, 3), ()),
                                  SD((1,), (0,), (0,))), [X53, I21], f"""\
{{ lambda ; a:f32[5,3] b:i32[2,1]. let
    c:f32[2,3] = broadcast_in_dim 1.0:f32[]
    d:f32[5,3] = scatter-add[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={{ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }}
    ] a b c
  in (d,) }}"""),
    (lambda x, i, u: lax.scatter(x, i, u, SD((1,), (0,), (0,)), mode="clip"), [X53, I21, U23], f"""\
{{ lambda ; a:f32[5,3] b:i32[2,1] c:f32[2,3]. let
    d:f32[5,3] = scatter[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      unique_indices=False
      update_consts=()
      update_jaxpr=None
    ] a b c
  in (d,) }}"""),
    (lambda x, i, u: lax.scatter_max(x, i, u, SD((1,), (0,), (0,)), indices_are_sorted=True,
                                     unique_indices=True), [X53, I21, U23], f"""\
{{ lambda ; a:f32[5,3] b:i32[2,1] c:f32[2,3]. let
    d:f32[5,3] = scatter-max[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=True
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={{ lambda ; e:f32[] f:f32[]. let g:f32[] = max e f in (g,) }}
    ] a b c
  in (d,) }}"""),
    # JAX keeps an equation on one line when its `[params]` group ends by column 80,
    # even if the operands after it run past
    (lambda x: (lax.slice(x, (0, 1), (2, 3), (1, 2)), lax.slice(x, (0, 1), (2, 3))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,1] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=(1, 2)] a
    c:f32[2,2] = slice[limit_indices=(2, 3) start_indices=(0, 1) strides=None] a
  in (b, c) }"""),
    (lambda x: lax.index_in_dim(x, 1, 1, False), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,1] = slice[limit_indices=(2, 2) start_indices=(0, 1) strides=(1, 1)] a
    c:f32[2] = squeeze[dimensions=(1,)] b
  in (c,) }"""),
]


test_printed_jaxpr_matches_jax = prints_as_jax_test(GOLDEN, exact=True)


def test_lowered_text():
    lowered = jxkernel.jit(lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3), mode="fill")
                           ).lower(X53, I21).as_text()
    assert "stablehlo.gather" in lowered and "stablehlo.select" in lowered
    assert "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], " \
           "start_index_map = [0], index_vector_dim = 1>" in lowered


# ------------------------------------------------------------------ errors
X, I = np.ones((2, 3), F32), np.zeros((2, 1), np.int32)
ERRORS = [
    (lambda: lax.slice(X, (0,), (1,)), TypeError,
     "slice start_indices must have length equal to the number of dimensions of the operand, "
     "got indices (0,) for operand shape (2, 3)."),
    (lambda: lax.slice(X, (0, 0), (1,)), TypeError,
     "slice limit_indices must have the same length as start_indices, got start_indices (0, 0) "
     "and limit_indices (1,)."),
    (lambda: lax.slice(X, (0, 0), (3, 1)), TypeError,
     "slice limit_indices must be less than or equal to operand shape, got limit_indices (3, 1) "
     "for operand shape (2, 3)."),
    (lambda: lax.slice(X, (-1, 0), (1, 1)), TypeError,
     "slice start_indices must have every element be nonnegative, got (-1, 0)."),
    (lambda: lax.slice(X, (1, 0), (0, 1)), TypeError,
     "slice limit_indices must be greater than or equal to start_indices, got start_indices "
     "(1, 0) and limit_indices (0, 1)."),
    (lambda: lax.slice(X, (0, 0), (2, 3), (1,)), TypeError,
     "slice strides must have length equal to the number of dimensions of the operand, got "
     "strides (1,) for operand shape (2, 3)."),
    (lambda: lax.slice(X, (0, 0), (2, 3), (-1, 1)), TypeError,
     "slice strides must have every element be nonnegative, got (-1, 1)."),
    (lambda: lax.slice(X, (0, 0), (2, 3), (0, 1)), TypeError,
     "slice strides must be positive, got (0, 1)"),
    (lambda: lax.index_in_dim(X, 5, 0), IndexError, "index 5 is out of bounds for axis 0 with size 2"),
    (lambda: lax.dynamic_slice(X, (0,), (1, 1)), ValueError,
     "Length of slice indices must match number of operand dimensions (1 vs (2, 3))"),
    (lambda: lax.dynamic_slice(X, (0, 0), (3, 1)), TypeError,
     "slice slice_sizes must be less than or equal to operand shape, got slice_sizes (3, 1) for "
     "operand shape (2, 3)."),
    (lambda: lax.dynamic_slice(X, (0, 0), (-1, 1)), TypeError,
     "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (-1, 1)."),
    (lambda: lax.dynamic_slice(X, (np.int32(0), np.int16(0)), (1, 1)), TypeError,
     "index arguments to dynamic_slice must be integers of the same type, got: int32, int16"),
    (lambda: lax.dynamic_slice(X, (F32(0), F32(0)), (1, 1)), TypeError,
     "index arguments to dynamic_slice must be integers of the same type, got: float32, float32"),
    (lambda: lax.dynamic_slice(X, (np.zeros(2, np.int32), 0), (1, 1)), TypeError,
     "start_indices arguments to dynamic_slice must be scalars, got indices "
     "(ShapedArray(int32[2]), ShapedArray(int32[]))"),
    (lambda: lax.dynamic_update_slice(X, np.ones(3, F32), (0, 0)), TypeError,
     "dynamic_update_slice update must have the same rank as operand, got update shape (3,) "
     "for operand shape (2, 3)."),
    (lambda: lax.dynamic_update_slice(X, np.ones((3, 3), F32), (0, 0)), TypeError,
     "dynamic_update_slice update shape must be smaller than operand shape, got update shape "
     "(3, 3) for operand shape (2, 3)."),
    (lambda: lax.dynamic_update_slice(X, np.ones((1, 1), np.int32), (0, 0)), TypeError,
     "lax.dynamic_update_slice requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.dynamic_update_slice(X, np.ones((1, 1), F32), (0,)), ValueError,
     "Length of slice indices must match number of operand dimensions (1 vs (2, 3))"),
    (lambda: lax.gather(X, I.astype(F32), GD((1,), (0,), (0,)), (1, 3)), ValueError,
     "indices must have an integer type"),
    (lambda: lax.gather(X, I, GD((1,), (0,), (0,)), (1, 4)), TypeError,
     "Slice size at index 1 in gather op is out of range, must be within [0, 3 + 1), got 4."),
    (lambda: lax.gather(X, I, GD((1,), (0,), (0,)), (2, 3)), TypeError,
     "Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 at "
     "position 0."),
    (lambda: lax.gather(X, np.zeros((2, 2), np.int32), GD((1,), (0,), (0,)), (1, 3)), TypeError,
     "Gather op has 1 elements in start_index_map and the bound of dimension index_vector_dim=1 "
     "of indices is 2. These two numbers must be equal."),
    (lambda: lax.gather(X, I, GD((1,), (0,), (0,)), (1, 3, 1)), TypeError,
     "Gather op must have one slice size for every input dimension; got: len(slice_sizes)=3, "
     "input_shape.rank=2"),
    (lambda: lax.gather(X, I, GD((1,), (), (0,)), (1, 3)), TypeError,
     "All components of the offset index in a gather op must either be a offset dimension or "
     "explicitly collapsed/batching; got len(slice_sizes)=2, output_slice_sizes=(1,), "
     "collapsed_slice_dims=(), operand_batching_dims=()."),
    (lambda: lax.gather(X, I, GD((2,), (0,), (0,)), (1, 3)), TypeError,
     "Offset dimension 0 in gather op is out of bounds; got 2, but should have been in [0, 2)"),
    (lambda: lax.gather(X, I, GD((1,), (0,), (3,)), (1, 3)), TypeError,
     "Invalid start_index_map; domain is [0, 2), got: 0->3."),
    (lambda: lax.gather(X, I, GD((1,), (0,), (0,)), (1, 3), mode="bogus"), ValueError,
     'Unknown gather mode "bogus"'),
    (lambda: lax.gather(X, np.zeros((3, 1), np.int32),
                        GD((), (1,), (1,), (0,), (0,)), (1, 1)), TypeError,
     "Gather op requires operand batching dimensions and indices batching dimensions to have "
     "the same shape, got (2,) and (3,)."),
    (lambda: lax.scatter_add(X, I, np.ones((2, 3), np.int32), SD((1,), (0,), (0,))), TypeError,
     "lax.scatter requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.scatter_add(X, I, np.ones((2, 3, 1), F32), SD((1,), (0,), (0,))), TypeError,
     "Updates tensor must be of rank 2; got 3."),
    (lambda: lax.scatter_add(X, I, np.ones((3, 3), F32), SD((1,), (0,), (0,))), TypeError,
     "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
     "corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 3, "
     "indices bound is 2."),
    (lambda: lax.scatter_add(X, I, np.ones((2, 4), F32), SD((1,), (0,), (0,))), TypeError,
     "Bounds of the window dimensions of updates must not exceed the bounds of the "
     "corresponding dimensions of operand. For dimension 1, updates bound is 4, operand bound "
     "is 3."),
    (lambda: lax.scatter(X, I.astype(F32), np.ones((2, 3), F32), SD((1,), (0,), (0,))),
     ValueError, "indices must have an integer type"),
    (lambda: lax.scatter_mul(X, I, np.ones((2, 3), F32), SD((1,), (), (0,))), TypeError,
     "Scatter op has window of size 1; doesn't match operand of rank 2."),
    (lambda: lax.scatter_min(X, np.zeros((2, 2), np.int32), np.ones((2, 3), F32),
                             SD((1,), (0,), (0,))), TypeError,
     "Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound of dimension "
     "index_vector_dim=1 of indices is 2. These two numbers must be equal"),
]


test_errors = errors_test(ERRORS)


def test_traced_slice_bounds_are_an_error():
    with pytest.raises(jxkernel.TracerIntegerConversionError):
        jxkernel.jit(lambda x, i: lax.slice_in_dim(x, i, 3))(np.ones(4, F32), 1)


# ================================================================== batching, jvp and transpose
# rules, on tests/support/rule_checks.py's harness: vmap equals stacking over in_axes mixes
# (nested, with jit both ways), check_grads to order 2 in both modes, per-example vjps, every
# transformed jaxpr type-checks, and a few print exactly as JAX 0.10.2 prints them.
ROWS_G, ROWS_S = GD((1,), (0,), (0,)), SD((1,), (0,), (0,))
BATCH_G = GD((), (1,), (1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
BATCH_S = SD((), (1,), (1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))


def _gather(dn, sizes, **kw):
    return lambda x, i: lax.gather(x, i, dn, sizes, **kw)


def _scatter(op, dn, **kw):
    return lambda x, i, u: op(x, i, u, dn, **kw)


RULE_CASES = [
    Case("slice", lambda x: lax.slice(x, (1, 0), (3, 4)), [floats(3, 4)], (0,)),
    Case("slice_strides", lambda x: lax.slice(x, (0, 1, 0), (3, 4, 2), (2, 2, 1)),
         [floats(3, 4, 2)], (0,)),
    # start indices out of range and negative: clamped / counted from the end
    Case("dynamic_slice", lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)),
         [floats(3, 4), ints(-4, 5), ints(-5, 6)], (0,)),
    Case("dynamic_slice_1d", lambda x, i: lax.dynamic_slice(x, (i,), (3,)),
         [floats(5), ints(-6, 7)], (0,)),
    Case("dynamic_slice_rank0", lambda x: lax.dynamic_slice(x, (), ()), [floats()], (0,)),
    Case("dynamic_update_slice",
         lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
         [floats(3, 4), floats(2, 2), ints(-4, 5), ints(-5, 6)], (0, 1)),
    Case("gather_rows", _gather(ROWS_G, (1, 3)), [floats(5, 3), ints(0, 5, 4, 1)], (0,)),
    Case("gather_points", _gather(GD((), (0, 1), (0, 1)), (1, 1)),
         [floats(4, 5), ints(0, 4, 2, 3, 2)], (0,)),
    Case("gather_windows", _gather(GD((1, 2), (), (1,)), (6, 2)),
         [floats(6, 5), ints(0, 4, 3, 1)], (0,)),
    Case("gather_batching_dims", _gather(BATCH_G, (1, 1)),
         [floats(3, 5), ints(0, 5, 3, 2, 1)], (0,)),
    Case("gather_clip", _gather(ROWS_G, (1, 3), mode="clip"),
         [floats(5, 3), ints(-3, 8, 4, 1)], (0,)),
    Case("gather_fill", _gather(ROWS_G, (1, 3), mode="fill", fill_value=0.5),
         [floats(5, 3), ints(-3, 8, 4, 1)], (0,)),
    Case("scatter_add", _scatter(lax.scatter_add, ROWS_S),          # duplicates accumulate
         [floats(5, 3), ints(0, 5, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_add_drop", _scatter(lax.scatter_add, ROWS_S),
         [floats(5, 3), ints(-2, 7, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_add_clip", _scatter(lax.scatter_add, ROWS_S, mode="clip"),
         [floats(5, 3), ints(-2, 7, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_add_windows", _scatter(lax.scatter_add, SD((1, 2), (), (1,))),
         [floats(6, 7), ints(0, 5, 3, 1), floats(3, 6, 2)], (0, 2)),
    Case("scatter_sub", _scatter(lax.scatter_sub, ROWS_S),
         [floats(5, 3), ints(0, 5, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_mul", _scatter(lax.scatter_mul, ROWS_S, unique_indices=True),
         [floats(5, 3), unique_rows(5, 3), floats(3, 3)], (0, 2)),
    Case("scatter_min", _scatter(lax.scatter_min, ROWS_S),
         [floats(5, 3), ints(0, 5, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_max", _scatter(lax.scatter_max, ROWS_S),
         [floats(5, 3), ints(0, 5, 4, 1), floats(4, 3)], (0, 2)),
    Case("scatter_unique", _scatter(lax.scatter, ROWS_S, unique_indices=True),
         [floats(5, 3), unique_rows(5, 3), floats(3, 3)], (0, 2)),
    Case("scatter", _scatter(lax.scatter, ROWS_S),     # not promised unique: JAX's id masking
         [floats(5, 3), unique_rows(5, 3), floats(3, 3)], (0, 2)),
    Case("scatter_batching_dims", _scatter(lax.scatter, BATCH_S),
         [floats(3, 5), unique_rows(5, 3, 2), floats(3, 2)], (0, 2)),
]

(test_vmap_equals_stacking, test_vmap_with_jit_and_nested, test_grads_order_2,
 test_transformed_jaxprs_typecheck, test_per_example_vjp) = case_tests(RULE_CASES)


def test_nondifferentiable_indices_get_no_tangents():
    x, i = np.arange(6, dtype=F32), np.int32(2)
    jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: lax.dynamic_slice(x, (i,), (2,)),
                                                (x,), (t,)))(x, x)
    check_jaxpr(jaxpr)
    out, t = jax.jvp(lambda x: lax.dynamic_slice(x, (i,), (2,)), (x,), (np.ones(6, F32),))
    close(t, np.ones(2, F32))
    # only the operand of a gather is differentiable; the indices come back as float0
    g = jax.vjp(lambda x, idx: lax.gather(x, idx, GD((), (0,), (0,)), (1,)), x,
                np.array([[1], [1]], np.int32))[1](np.ones(2, F32))
    close(g[0], [0, 2, 0, 0, 0, 0])
    assert g[1].dtype == float0


def test_scatter_transpose_needs_unique_indices():
    # as JAX: only the promised-unique scatter is transposed directly (the general one's
    # jvp is built from select_n and scatter-add, whose transposes exist)
    x, idx = np.zeros(4, F32), np.array([[1], [1]], np.int32)
    f = lambda x, u: lax.scatter(x, idx, u, SD((), (0,), (0,)))
    gx, gu = jax.vjp(f, x, np.array([1.0, 2.0], F32))[1](np.arange(4, dtype=F32))
    close(gx, [0, 0, 2, 3])
    assert sorted(np.asarray(gu).tolist()) == [0.0, 1.0]   # one update wins element 1
    eqn = jax.make_jaxpr(f)(x, np.zeros(2, F32)).eqns[0]
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        transpose_rules[lax.scatter_p](np.ones(4, F32), UndefinedPrimal(eqn.invars[0].aval), idx,
                                       np.zeros(2, F32), **eqn.params)


def test_scatter_mul_grad_needs_unique_indices():
    f = lambda x, u: lax.scatter_mul(x, np.array([[1]], np.int32), u, SD((), (0,), (0,)))
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        jax.jvp(f, (np.ones(3, F32), np.ones(1, F32)), (np.ones(3, F32), np.ones(1, F32)))


def test_dynamic_slice_batched_starts_clamp_like_unbatched():
    x = np.arange(20, dtype=F32).reshape(4, 5)
    starts = np.array([-9, -1, 0, 3, 7], np.int32)
    got = jax.vmap(lambda i: lax.dynamic_slice(x, (i, i), (2, 3)))(starts)
    for k, i in enumerate(starts):
        close(np.asarray(got)[k], np.asarray(lax.dynamic_slice(x, (i, i), (2, 3))))


X3 = np.ones(3, F32)
# (function, arguments, what JAX 0.10.2 prints for the same program)
RULES_GOLDEN = [
    (jax.grad(lambda x: sum_all(lax.slice(x, (0, 0), (2, 3), (1, 2)))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2] = slice[limit_indices=(2, 3) start_indices=(0, 0) strides=(1, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = pad[
      padding_config=((0, np.int64(0), np.int64(0)), (0, np.int64(0), np.int64(1)))
    ] c 0.0:f32[]
  in (d,) }"""),
    (jax.grad(lambda x, u, i: sum_all(lax.dynamic_update_slice(x, u, (0, i))), (0, 1)),
     [X23, np.ones((2, 1), F32), np.int32(1)], """\
{ lambda ; a:f32[2,3] b:f32[2,1] c:i32[]. let
    d:bool[] = lt c 0:i32[]
    e:i32[] = add c 3:i32[]
    f:i32[] = select_n d c e
    g:f32[2,3] = dynamic_update_slice a b 0:i32[] f
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g
    h:f32[2,3] = broadcast_in_dim 1.0:f32[]
    i:f32[2,1] = broadcast_in_dim 0.0:f32[]
    j:f32[2,3] = dynamic_update_slice h i 0:i32[] f
    k:f32[2,1] = dynamic_slice[slice_sizes=(2, 1)] h 0:i32[] f
  in (j, k) }"""),
    (jax.grad(lambda x, i: sum_all(lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3)))), [X23, I21],
     f"""\
{{ lambda ; a:f32[2,3] b:i32[2,1]. let
    c:f32[2,3] = gather[
      dimension_numbers={_GATHER_DN}
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,3] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] = broadcast_in_dim 0.0:f32[]
    f:f32[2,3] = scatter-add[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={{ lambda ; g:f32[] h:f32[]. let i:f32[] = add g h in (i,) }}
    ] e b d
  in (f,) }}"""),
    (jax.grad(lambda x, u: sum_all(lax.scatter(x, I21, u, SD((1,), (0,), (0,)),
                                            unique_indices=True)), (0, 1)), [X23, X23], f"""\
{{ lambda a:i32[2,1]; b:f32[2,3] c:f32[2,3]. let
    d:f32[2,3] = scatter[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] b a c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    e:f32[2,3] = broadcast_in_dim 1.0:f32[]
    f:f32[2,3] = broadcast_in_dim 0.0:f32[]
    g:f32[2,3] = scatter[
      dimension_numbers={_SCATTER_DN}
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] e a f
    h:f32[2,3] = gather[
      dimension_numbers={_GATHER_DN}
      fill_value=0
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 3)
      unique_indices=False
    ] e a
  in (g, h) }}"""),
    (jax.vmap(lambda x: lax.slice(x, (0, 1), (2, 3), (1, 2)), in_axes=1),
     [np.ones((2, 4, 3), F32)], """\
{ lambda ; a:f32[2,4,3]. let
    b:f32[2,4,1] = slice[
      limit_indices=(2, 4, 3)
      start_indices=(0, 0, 1)
      strides=(1, 1, 2)
    ] a
    c:f32[4,2,1] = transpose[permutation=(1, 0, 2)] b
  in (c,) }"""),
    (jax.vmap(lambda x: lax.dynamic_slice(x, (1,), (2,))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:i32[1] = broadcast_in_dim 1:i32[]
    c:f32[2,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(0, np.int64(1)), collapsed_slice_dims=(), start_index_map=(np.int64(1),), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      slice_sizes=(2, 2)
      unique_indices=True
    ] a b
  in (c,) }"""),
    (jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), in_axes=(None, 0)),
     [X3, np.zeros(4, np.int32)], """\
{ lambda ; a:f32[3] b:i32[4]. let
    c:bool[4] = lt b 0:i32[]
    d:i32[4] = add b 3:i32[]
    e:i32[4] = select_n c b d
    f:i32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[4,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(2,)
      unique_indices=False
    ] a f
  in (g,) }"""),
    (jax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)), in_axes=(0, None, 0)),
     [X23, np.ones(1, F32), np.zeros(2, np.int32)], """\
{ lambda ; a:f32[2,3] b:f32[1] c:i32[2]. let
    d:bool[2] = lt c 0:i32[]
    e:i32[2] = add c 3:i32[]
    f:i32[2] = select_n d c e
    g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f
    h:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    i:f32[2,3] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(np.int64(1),), inserted_window_dims=(), scatter_dims_to_operand_dims=(np.int64(1),), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] a g h
  in (i,) }"""),
    (jax.vmap(lambda x, i: lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3))),
     [np.ones((4, 2, 3), F32), np.zeros((4, 2, 1), np.int32)], """\
{ lambda ; a:f32[4,2,3] b:i32[4,2,1]. let
    c:f32[4,2,3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(np.int64(2),), collapsed_slice_dims=(np.int64(1),), start_index_map=(np.int64(1),), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1, 3)
      unique_indices=False
    ] a b
  in (c,) }"""),
    (jax.vmap(lambda x, i, u: lax.scatter_add(x, i, u, SD((1,), (0,), (0,))),
              in_axes=(0, None, None)), [np.ones((4, 2, 3), F32), I21, X23], """\
{ lambda ; a:f32[4,2,3] b:i32[2,1] c:f32[2,3]. let
    d:f32[4,2,3] = broadcast_in_dim[
      broadcast_dimensions=(np.int64(1), np.int64(2))
    ] c
    e:f32[4,2,3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0, np.int64(2)), inserted_window_dims=(np.int64(1),), scatter_dims_to_operand_dims=(np.int64(1),), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; f:f32[] g:f32[]. let h:f32[] = add f g in (h,) }
    ] a b d
  in (e,) }"""),
]


test_transformed_jaxpr_prints_as_jax = prints_as_jax_test(RULES_GOLDEN)


def test_scatter_jvp_matches_jax():
    """The general scatter's jvp: ids scattered and gathered back, masks, two scatter-adds
    (JAX prints its shared update_jaxpr once, as `let jaxpr = ... in`; we print it inline)."""
    sdn = SD((1,), (0,), (0,))
    closed = jax.make_jaxpr(lambda x, u, tx, tu: jax.jvp(
        lambda x, u: lax.scatter(x, I21, u, sdn), (x, u), (tx, tu)))(X23, X23, X23, X23)
    check_jaxpr(closed)
    masks = ["broadcast_in_dim", "eq", "broadcast_in_dim", "select_n",      # operand kept
             "eq", "broadcast_in_dim", "select_n"]                           # update won
    assert [str(e.primitive) for e in closed.eqns] == [
        "iota", "reshape", "broadcast_in_dim", "add", "broadcast_in_dim", "scatter", "gather",
        *masks, *masks, "scatter-add", "scatter-add"]
    assert closed.eqns[0].params["dtype"] == np.uint32
