"""Helpers for batching (vmap) rules, which live beside each primitive in lax/.

A batching rule gets the operands' values and batch dims (an int, or `not_mapped`
for an operand that is the same for every batch element) and returns the outputs
and their batch dims:

    batching_rules[sin_p] = vectorized_batcher(sin_p)      # elementwise: dim unchanged
"""
from __future__ import annotations

import numpy as np

from ..core.avals import dim_inserted, dim_removed, get_aval
from ..core.dtypes import float0
from ..core.interpreter_primitives import broadcast_in_dim, broadcast_in_dim_p, reshape, transpose
from ..core.mesh import AbstractMesh, NamedSharding, get_mesh, use_abstract_mesh
from ..core.primitive import abstract_eval_rules, batching_rules

not_mapped = None
_I64 = np.int64
_EMPTY_MESH = AbstractMesh((), ())


def ndim(x) -> int:
    return len(get_aval(x).shape)


def shape(x) -> tuple:
    return get_aval(x).shape


def moveaxis(x, src: int, dst: int):
    """`x` with axis `src` moved to position `dst` (a transpose, or nothing)."""
    n = ndim(x)
    src, dst = src % n, dst % n
    if src == dst:
        return x
    perm = [i for i in range(n) if i != src]
    perm.insert(dst, src)
    return transpose(x, perm)


def broadcast(x, size: int, axis: int, mesh_axis=None):
    """`size` copies of `x` stacked along a new axis `axis`. Its broadcast_dimensions are
    NumPy's np.delete of a range, as JAX's batching.broadcast computes them: they print
    as `np.int64(1)` in a jaxpr, as JAX's do. `mesh_axis`: vmap's explicit mesh axes (the
    axes its mapped inputs' batch dimension is split over), which type the new axis of a
    typed `x` (JAX's: `f32[2@y]` broadcast by vmap over x is `f32[8@x,2@y]`)."""
    s = list(shape(x))
    s.insert(axis, size)
    if isinstance(x, np.ndarray) and x.dtype == float0:     # no device type: stays NumPy, as
        return np.zeros(s, float0)                          # JAX broadcasts it
    # (np.delete(np.arange(len(s)), axis)'s values, built without its ~5 µs per call)
    dims = tuple(_I64(i) for i in range(len(s)) if i != axis)
    aval = get_aval(x)
    if getattr(aval, "split", None) is None:
        if get_mesh() is not None and getattr(aval, "_mesh", None) is None:
            # a value on no mesh (a NumPy constant, a jaxpr's literal) broadcast on none, as
            # JAX's under use_abstract_mesh of its empty mesh (not typed over set_mesh's
            # mesh, which its select cases would then have to agree with: vmap of slogdet)
            with use_abstract_mesh(_EMPTY_MESH):
                return broadcast_in_dim(x, s, dims)
        return broadcast_in_dim(x, s, dims)
    if mesh_axis is None or not aval.split.mesh.axis_names:   # (JAX's: no mesh axis)
        return broadcast_in_dim(x, s, dims)
    return broadcast_in_dim_p.bind(x, shape=tuple(s), broadcast_dimensions=dims,
                                   sharding=dim_inserted(aval, axis, size, mesh_axis).split)


def sharding_for_vmap(axis_data, sharding, axis: int, ndim: int):
    """JAX's get_sharding_for_vmap: a primitive's sharding param (out_sharding=, reshard's)
    for its batched result of rank `ndim`, the batch axis `axis` split over vmap's explicit mesh
    axes (unsplit where there are none): P('y') of a result batched over x is P('x', 'y')."""
    ema = axis_data.explicit_mesh_axis
    parts = list(sharding.spec.partitions) + [None] * (ndim - 1 - len(sharding.spec))
    parts.insert(axis, None if ema is None else ema[0] if len(ema) == 1 else tuple(ema))
    return NamedSharding(sharding.mesh, sharding.spec.update(partitions=parts),
                         memory_kind=sharding.memory_kind)


def bdim_at_front(x, bdim, size: int, mesh_axis=None):
    """`x` with its batch dim first; an unbatched `x` is broadcast to `size` copies."""
    if bdim is not_mapped:
        return broadcast(x, size, 0, mesh_axis)
    return moveaxis(x, bdim, 0)


def move_to(x, bdim, dst, size: int, mesh_axis=None):
    """`x` with its batch dim at `dst`; an unbatched `x` is broadcast there directly, as
    JAX's matchaxis does."""
    if bdim is not_mapped:
        return broadcast(x, size, dst, mesh_axis)
    return moveaxis(x, bdim, dst)


def axis_size_of(vals, dims) -> int:
    for x, d in zip(vals, dims):
        if d is not not_mapped:
            return shape(x)[d]
    raise ValueError("no batched operand")


def vectorized_batcher(prim):
    """Rule of a unary elementwise primitive: apply it, the batch dim stays where it is."""
    def rule(vals, dims, **params):
        return prim.bind(*vals, **params), dims[0]
    return rule


def broadcasting_batcher(prim):
    """Rule of an n-ary elementwise primitive whose operands are equal-rank or rank-0.

    Fast path: every batched operand has its batch dim at the same place and every
    unbatched one is a scalar. Otherwise batch dims move to the front and unbatched
    operands get a leading size-1 dim (lax broadcasts size-1 dims). Shapes that do not
    broadcast raise the error of one example's (`_check_one_example`)."""

    def batched(vals, dims, params):
        batched = [(x, d) for x, d in zip(vals, dims) if d is not not_mapped]
        first = batched[0][1]
        ranks = [ndim(x) - (d is not not_mapped) for x, d in zip(vals, dims)]
        out_rank = max(ranks)
        if all(d == first for _, d in batched) and all(
                d is not not_mapped and r == out_rank or d is not_mapped and r == 0
                for r, d in zip(ranks, dims)):
            return prim.bind(*vals, **params), first
        moved = []
        for x, d, r in zip(vals, dims, ranks):
            if d is not_mapped:
                if r:
                    x = broadcast(x, 1, 0)
            else:
                x = moveaxis(x, d, 0)
                if r < out_rank:        # a batched scalar among arrays: (B,) -> (B, 1, ..., 1)
                    x = reshape(x, (shape(x)[0],) + (1,) * out_rank)
            moved.append(x)
        return prim.bind(*moved, **params), 0

    def rule(vals, dims, **params):
        try:
            return batched(vals, dims, params)
        except TypeError:
            _check_one_example(prim, vals, dims, params)
            raise
    return rule


def _check_one_example(prim, vals, dims, params) -> None:
    """Raise the error the user's function meets where its operands, as it sees them (one
    example: each without its batch dim), have sizes that do not broadcast: `a + b` of a
    mapped (8, 3) and an unmapped (4,) is (3,) + (4,), JAX's message (its jnp functions are
    jitted, so they trace one example); batched, it would name (8, 3) and (1, 4). Ranks that
    differ are left to the batched bind: only lax called directly gives them, and JAX's lax
    names the batched ranks. Called where the batched bind failed."""
    shapes = [shape(x) if d is not_mapped else shape(x)[:d] + shape(x)[d + 1:]
              for x, d in zip(vals, dims)]
    nonscalar = [s for s in shapes if s]
    if len({len(s) for s in nonscalar}) > 1 or all(
            len({n for n in sizes if n != 1}) <= 1 for sizes in zip(*nonscalar)):
        return
    rule = abstract_eval_rules.get(prim)
    if rule is not None:
        rule(*(get_aval(x) if d is not_mapped else dim_removed(get_aval(x), d)
               for x, d in zip(vals, dims)), **params)


def defvectorized(prim):
    batching_rules[prim] = vectorized_batcher(prim)


def defbroadcasting(prim):
    batching_rules[prim] = broadcasting_batcher(prim)
