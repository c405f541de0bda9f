"""Batching, jvp and transpose rules of the shape and slicing primitives (lax/shapes.py,
lax/slicing.py).

- vmap(f)(xs) equals stacking f(x) over the examples, for in_axes 0, 1, -1 and None mixes
  (batched operand, batched indices, both), nested, and with jit in both orders;
- check_grads to order 2 in both modes on the float inputs (integer indices closed over);
- per-example vjps (vmap of the transposes);
- every transformed jaxpr type-checks, and a few print exactly as JAX 0.10.2 prints them.
"""
import re
from typing import NamedTuple

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.core.primitive import transpose_rules
from jxkernel.transforms.ad_util import UndefinedPrimal, float0
from jxkernel.test_util import check_grads
from numerics import assert_allclose_ulp

F32 = np.float32
GD, SD = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
B = 3                                      # vmap batch size


# ------------------------------------------------------------------ argument makers
def floats(*shape):
    return lambda rng: rng.standard_normal(shape).astype(F32)


def ints(lo, hi, *shape):
    """Integers in [lo, hi): out-of-bounds and negative ones where lo/hi say so."""
    return lambda rng: rng.integers(lo, hi, shape).astype(np.int32)


def unique_rows(n, *shape):
    """Index vectors (a last dim of 1) of rows in [0, n), distinct along the last dim of
    `shape`, so that a scatter is deterministic."""
    def make(rng):
        rows = [rng.permutation(n)[:shape[-1]] for _ in range(int(np.prod(shape[:-1])))]
        return np.reshape(rows, shape + (1,)).astype(np.int32)
    return make


class Case(NamedTuple):
    name: str
    fun: object
    makers: list          # one maker per argument
    diff: tuple           # positions of the float (differentiable) arguments


def _gather(dn, sizes, **kw):
    return lambda x, i: lax.gather(x, i, dn, sizes, **kw)


def _scatter(op, dn, **kw):
    return lambda x, i, u: op(x, i, u, dn, **kw)


ROWS_G, ROWS_S = GD((1,), (0,), (0,)), SD((1,), (0,), (0,))
BATCH_G = GD((), (1,), (1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
BATCH_S = SD((), (1,), (1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))

CASES = [
    Case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)),
         [floats(1, 3)], (0,)),
    Case("broadcast_in_dim_scalar", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), [floats()],
         (0,)),
    Case("reshape", lambda x: lax.reshape(x, (3, 1, 2)), [floats(2, 3)], (0,)),
    Case("reshape_dimensions", lambda x: lax.reshape(x, (6,), (1, 0)), [floats(2, 3)], (0,)),
    Case("squeeze", lambda x: lax.squeeze(x, (0, 2)), [floats(1, 3, 1)], (0,)),
    Case("transpose", lambda x: lax.transpose(x, (2, 0, 1)), [floats(2, 3, 4)], (0,)),
    Case("rev", lambda x: lax.rev(x, (0, 2)), [floats(2, 3, 4)], (0,)),
    Case("concatenate", lambda x, y: lax.concatenate([x, y, x], 1),
         [floats(2, 3), floats(2, 1)], (0, 1)),
    # split's outputs recombined (reversed, an empty piece; multiplied) into one array
    Case("split", lambda x: lax.concatenate(lax.split(x, (1, 0, 3), 1)[::-1], 1),
         [floats(2, 4)], (0,)),
    Case("split_mul", lambda x: lax.mul(*lax.split(x, (2, 2), 0)), [floats(4, 3)], (0,)),
    Case("stack", lambda x, y: lax.stack([x, y, x], 1), [floats(2, 3), floats(2, 3)], (0, 1)),
    # unstack's third piece unused: its cotangent is a symbolic zero
    Case("unstack", lambda x: lax.mul(*lax.unstack(x, 0)[:2]), [floats(3, 2)], (0,)),
    Case("tile", lambda x: lax.tile(x, (2, 1, 3)), [floats(2, 3, 1)], (0,)),
    Case("pad", lambda x, p: lax.pad(x, p, [(1, 2, 1), (-1, 1, 2)]), [floats(3, 4), floats()],
         (0, 1)),
    Case("pad_1d", lambda x, p: lax.pad(x, p, [(0, -2, 3)]), [floats(4), floats()], (0, 1)),
    Case("iota", lambda x: lax.mul(x, lax.broadcasted_iota(F32, (2, 3), 1)), [floats(2, 3)],
         (0,)),
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
IDS = [c.name for c in CASES]


def example(case, seed):
    rng = np.random.default_rng(seed)
    return [m(rng) for m in case.makers]


def in_axes_specs(case):
    """0, -1 and 1 everywhere (0 for rank-0 arguments), each argument alone batched, and
    each argument alone unbatched."""
    ranks = [np.ndim(a) for a in example(case, 0)]
    n = len(ranks)
    specs = [(0,) * n, (-1,) * n, tuple(1 if r else 0 for r in ranks)]
    if n > 1:
        specs += [tuple(0 if j == i else None for j in range(n)) for i in range(n)]
        specs += [tuple(None if j == i else -1 for j in range(n)) for i in range(n)]
    return list(dict.fromkeys(specs))


def batched_args(case, in_axes, seed=0):
    """(arguments stacked along in_axes, the per-example argument lists)."""
    examples = [example(case, seed + k) for k in range(B)]
    examples = [[ex[i] if ax is not None else examples[0][i] for i, ax in enumerate(in_axes)]
                for ex in examples]
    args = [examples[0][i] if ax is None else np.stack([ex[i] for ex in examples], ax)
            for i, ax in enumerate(in_axes)]
    return args, examples


def stacked(fun, examples):
    return np.stack([np.asarray(fun(*ex)) for ex in examples])


def close(got, want):
    """Exactly: these rules move data, and round at most once per element (a multiply, a
    scatter's add) in the same order batched or not, so every CPU gets the same bits."""
    got = np.asarray(got)
    want = np.asarray(want, got.dtype) if isinstance(want, list) else np.asarray(want)
    assert_allclose_ulp(got, want, 0)


# ------------------------------------------------------------------ vmap
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vmap_equals_stacking(case):
    for in_axes in in_axes_specs(case):
        args, examples = batched_args(case, in_axes)
        batched = jax.vmap(case.fun, in_axes=in_axes)
        close(batched(*args), stacked(case.fun, examples))
        check_jaxpr(jax.make_jaxpr(batched)(*args))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vmap_with_jit_and_nested(case):
    in_axes = (-1,) * len(case.makers)
    args, examples = batched_args(case, in_axes, seed=10)
    want = stacked(case.fun, examples)
    close(jax.jit(jax.vmap(case.fun, in_axes=in_axes))(*args), want)
    close(jax.vmap(jax.jit(case.fun), in_axes=in_axes)(*args), want)
    # nested: the outer vmap maps axis 1 of the first argument (0 of the rest), the inner one
    # axis 0 of every argument but the last (if there are more), which stays the same across
    # the inner batch
    inner_axes = (0,) if len(args) == 1 else (0,) * (len(args) - 1) + (None,)
    outer_axes = (1,) + (0,) * (len(args) - 1)
    sets = [batched_args(case, inner_axes, seed=20 + 5 * k) for k in range(2)]
    outer_args = [np.stack([s[0][i] for s in sets], ax) for i, ax in enumerate(outer_axes)]
    nested = jax.vmap(jax.vmap(case.fun, in_axes=inner_axes), in_axes=outer_axes)
    close(nested(*outer_args), np.stack([stacked(case.fun, s[1]) for s in sets]))
    check_jaxpr(jax.make_jaxpr(nested)(*outer_args))


# ------------------------------------------------------------------ differentiation
def closed_over_ints(case, args):
    """(function of the float arguments only, those arguments)."""
    def fun(*floats):
        full = list(args)
        for pos, x in zip(case.diff, floats):
            full[pos] = x
        return case.fun(*full)
    return fun, [args[i] for i in case.diff]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_grads_order_2(case):
    fun, floats_ = closed_over_ints(case, example(case, 1))
    check_grads(fun, floats_, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_transformed_jaxprs_typecheck(case):
    fun, floats_ = closed_over_ints(case, example(case, 2))
    out = fun(*floats_)
    ct = np.random.default_rng(3).standard_normal(np.shape(out)).astype(F32)
    check_jaxpr(jax.make_jaxpr(lambda *xs: jax.jvp(fun, xs, xs))(*floats_))
    check_jaxpr(jax.make_jaxpr(lambda *xs: jax.vjp(fun, *xs)[1](ct))(*floats_))
    check_jaxpr(jax.make_jaxpr(jax.linearize(fun, *floats_)[1])(*floats_))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_per_example_vjp(case):
    """vmap of a vjp: batching rules of the transposes (pad, scatter-add into zeros, ...),
    with the indices batched too."""
    def vjp_of(*args):
        ct = args[-1]
        fun, floats_ = closed_over_ints(case, list(args[:-1]))
        return jax.vjp(fun, *floats_)[1](ct)
    examples = [example(case, 30 + k) for k in range(B)]
    cts = [np.random.default_rng(40 + k).standard_normal(np.shape(case.fun(*ex))).astype(F32)
           for k, ex in enumerate(examples)]
    args = [np.stack(xs) for xs in zip(*examples)] + [np.stack(cts)]
    got = jax.vmap(vjp_of)(*args)
    for k, ex in enumerate(examples):
        for g, w in zip(got, vjp_of(*ex, cts[k])):
            close(np.asarray(g)[k], np.asarray(w))


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


# ------------------------------------------------------------------ printed as JAX prints
def _normalized(text):
    """JAX prints params built from NumPy ints as np.int64(3) and breaks lines by the length
    of that text; ours are Python ints. Compare the tokens."""
    text = re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)
    return re.sub(r"\[\s+", "[", re.sub(r"\s+\]", "]", " ".join(text.split())))


def _sum(x):
    return lax.reduce_sum(x, tuple(range(np.ndim(x))))


X3, X13, X23 = np.ones(3, F32), np.ones((1, 3), F32), np.ones((2, 3), F32)
I21 = np.zeros((2, 1), np.int32)
_GDN = ("GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
_SDN = ("ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
        "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=())")

# (function, arguments, what JAX 0.10.2 prints for the same program)
GOLDEN = [
    (jax.grad(lambda x: _sum(lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)))), [X13], """\
{ lambda ; a:f32[1,3]. let
    b:f32[2,4,3] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] b
    c:f32[2,4,3] = broadcast_in_dim 1.0:f32[]
    d:f32[3] = reduce_sum[axes=(0, 1) out_sharding=None] c
    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d
  in (e,) }"""),
    (jax.grad(lambda x: _sum(lax.reshape(x, (6,), (1, 0)))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    c:f32[6] = broadcast_in_dim 1.0:f32[]
    d:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2) sharding=None] c
    e:f32[2,3] = transpose[permutation=(1, 0)] d
  in (e,) }"""),
    (jax.grad(lambda x, p: _sum(lax.pad(x, p, [(1, 2, 1), (0, -1, 0)])), (0, 1)),
     [X23, F32(0)], """\
{ lambda ; a:f32[2,3] b:f32[]. let
    c:f32[6,2] = pad[padding_config=((1, 2, 1), (0, -1, 0))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[6,2] = broadcast_in_dim 1.0:f32[]
    e:f32[3,3] = pad[
      padding_config=((np.int64(-1), np.int64(-2), np.int64(0)), (np.int64(0), np.int64(1), np.int64(0)))
    ] d 0.0:f32[]
    f:f32[2,3] = slice[
      limit_indices=(3, 3)
      start_indices=(np.int64(0), np.int64(0))
      strides=(np.int64(2), np.int64(1))
    ] e
    g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    h:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
    i:f32[] = sub g h
  in (f, i) }"""),
    (jax.grad(lambda x: _sum(lax.slice(x, (0, 0), (2, 3), (1, 2)))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2] = slice[limit_indices=(2, 3) start_indices=(0, 0) strides=(1, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = pad[
      padding_config=((0, np.int64(0), np.int64(0)), (0, np.int64(0), np.int64(1)))
    ] c 0.0:f32[]
  in (d,) }"""),
    (jax.grad(lambda x, u, i: _sum(lax.dynamic_update_slice(x, u, (0, i))), (0, 1)),
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
    (jax.grad(lambda x, i: _sum(lax.gather(x, i, GD((1,), (0,), (0,)), (1, 3)))), [X23, I21],
     f"""\
{{ lambda ; a:f32[2,3] b:i32[2,1]. let
    c:f32[2,3] = gather[
      dimension_numbers={_GDN}
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
      dimension_numbers={_SDN}
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={{ lambda ; g:f32[] h:f32[]. let i:f32[] = add g h in (i,) }}
    ] e b d
  in (f,) }}"""),
    (jax.grad(lambda x, u: _sum(lax.scatter(x, I21, u, SD((1,), (0,), (0,)),
                                            unique_indices=True)), (0, 1)), [X23, X23], f"""\
{{ lambda a:i32[2,1]; b:f32[2,3] c:f32[2,3]. let
    d:f32[2,3] = scatter[
      dimension_numbers={_SDN}
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
      dimension_numbers={_SDN}
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] e a f
    h:f32[2,3] = gather[
      dimension_numbers={_GDN}
      fill_value=0
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 3)
      unique_indices=False
    ] e a
  in (g, h) }}"""),
    (jax.vmap(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), in_axes=1), [X23.T], """\
{ lambda ; a:f32[3,2]. let
    b:f32[2,3] = transpose[permutation=(1, 0)] a
    c:f32[2,2,3] = broadcast_in_dim[broadcast_dimensions=(0, np.int64(2))] b
  in (c,) }"""),
    (jax.vmap(lambda x: lax.reshape(x, (6,), (1, 0)), in_axes=1), [np.ones((2, 4, 3), F32)], """\
{ lambda ; a:f32[2,4,3]. let
    b:f32[4,2,3] = transpose[permutation=(1, 0, 2)] a
    c:f32[4,6] = reshape[dimensions=(0, 2, 1) new_sizes=(4, 6) sharding=None] b
  in (c,) }"""),
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
    (jax.vmap(lambda x, p: lax.pad(x, p, [(1, 1, 0)])), [X23, np.ones(2, F32)], """\
{ lambda ; a:f32[2,3] b:f32[2]. let
    c:f32[2,5] = pad[padding_config=((0, 0, 0), (1, 1, 0))] a 0.0:f32[]
    d:bool[2,3] = broadcast_in_dim True:bool[]
    e:bool[2,5] = pad[padding_config=((0, 0, 0), (1, 1, 0))] d False:bool[]
    f:f32[2,5] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    g:f32[2,5] = select_n e f c
  in (g,) }"""),
    (jax.vmap(lambda x, y: lax.concatenate([x, y], 0), in_axes=(0, None)), [X23, X3], """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[2,6] = concatenate[dimension=1] a c
  in (d,) }"""),
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


@pytest.mark.parametrize("i", range(len(GOLDEN)))
def test_printed_jaxpr_matches_jax(i):
    fun, args, text = GOLDEN[i]
    closed = jax.make_jaxpr(fun)(*args)
    check_jaxpr(closed)
    assert _normalized(str(closed)) == _normalized(text)


def test_concatenate_transpose_is_a_split_as_in_jax():
    # printed by JAX 0.10.2; a closed-over operand's piece is dropped (`_`)
    closed = jax.make_jaxpr(jax.grad(lambda x, y: _sum(lax.concatenate([x, y], 0)), (0, 1)))(
        X23, X13)
    check_jaxpr(closed)
    assert _normalized(str(closed)).endswith(_normalized("""\
    d:f32[3,3] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] f:f32[1,3] = split[axis=0 sizes=(2, 1)] d
  in (e, f) }"""))
    closed = jax.make_jaxpr(jax.grad(lambda x: _sum(lax.concatenate([x, X13, x], 0))))(X23)
    check_jaxpr(closed)
    assert _normalized(str(closed)) == _normalized("""{ lambda a:f32[1,3]; b:f32[2,3]. let
    c:f32[5,3] = concatenate[dimension=0] b a b
    _:f32[1,3] = broadcast_in_dim 0.0:f32[]
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[5,3] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] _:f32[1,3] f:f32[2,3] = split[axis=0 sizes=(2, 1, 2)] d
    g:f32[2,3] = add_any e f
  in (g,) }""")


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
