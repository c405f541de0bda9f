"""ppermute (its primitive, the transpose of a permutation its inverse) and the functions on
it: pshuffle; and pbroadcast, a psum masked to one member.

    >>> jax.vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.arange(2.))
    Array([1., 0.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core.avals import get_aval
from ...core.axis_env import visible_axes
from ...core.primitive import Primitive
from ...tree_util import tree_map
from ...xla import stablehlo as hlo
from ...transforms import batch_util as bu
from .. import _lowering as hl
from ..conversion import convert_element_type
from ..elementwise import eq, select
from ..shapes import broadcast_in_dim
from ..slicing import GatherDimensionNumbers, gather
from ._common import (_CHANNEL, _as_names, _axis_size, _bound, _register_linear_collective,
                      mesh_groups, varying)
from .all_reduce import psum
from .axis_indices import _member_index, axis_index
from .gather_scatter import _pick, _stack_all


# ------------------------------------------------------------------ ppermute
ppermute_p = Primitive("ppermute")


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    manual = _bound(ctx, _as_names(axis_name))
    if not perm:                   # nobody receives anything
        return hl.splat(ctx, 0, ctx.avals_out[0].dtype, ctx.avals_out[0].shape)
    # the pairs within each group of devices along the axes, numbered in the mesh's order
    # whatever the order of the names (JAX sorts each group's device ids)
    groups = [sorted(g) for g in mesh_groups(manual[0], _as_names(axis_name))]
    n = len(groups[0])
    pairs = [[g[src % n], g[dst % n]] for g in groups for src, dst in perm]
    return ctx.op1("stablehlo.collective_permute", [x], attrs={
        "channel_handle": _CHANNEL, "source_target_pairs": hlo.dense_i64(pairs)})


def _ppermute_batching(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    if len(_as_names(axis_name)) > 1:
        return _ppermute_several(axis_data, x, d, _as_names(axis_name), perm), 0
    n = axis_data.size
    source = {dst % n: src % n for src, dst in perm}     # receiver -> sender
    if d is bu.not_mapped and len(source) == n:          # everyone gets an equal value
        return x, d
    if len(source) == n and d is not bu.not_mapped:
        # a whole permutation: JAX's `v.take(perm_indices, d)`, the value's own take method
        # (jnp.take's, whose jaxpr it then shows: lax imports no jnp)
        return x.take(np.array([source[j] for j in range(n)]), d), d
    x = bu.bdim_at_front(x, d, n)
    rank = bu.ndim(x)
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank)), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    idx = np.array([[source.get(j, 0)] for j in range(n)], np.int32)
    out = gather(x, idx, dnums, (1,) + bu.shape(x)[1:], indices_are_sorted=False,
                 unique_indices=len(source) == n, mode="promise_in_bounds")
    if len(source) < n:            # members nobody sends to get zeros
        keep = np.array([j in source for j in range(n)])
        keep = broadcast_in_dim(keep, bu.shape(out), (0,))
        out = select(keep, out, broadcast_in_dim(np.zeros((), get_aval(out).dtype),
                                                  bu.shape(out), ()))
    return out, 0


def _ppermute_transpose(ct, x, *, axis_name, perm):
    # a permutation's transpose sends every value back where it came from
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


_register_linear_collective(ppermute_p, lambda x, *, axis_name, perm: x, _ppermute_lowering,
                            _ppermute_batching, _ppermute_transpose)


def _check_perm(perm, size):
    perm = tuple((int(s), int(d)) for s, d in perm)
    for s, d in perm:
        if not (-size <= s < size and -size <= d < size):
            raise ValueError(f"ppermute perm {perm} names index {s if abs(s) >= size else d}, "
                             f"but the axis has size {size}: indices must lie in "
                             f"[-{size}, {size})")
    srcs, dsts = [s % size for s, _ in perm], [d % size for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    return perm


def pbroadcast(x, axis_name, source):
    """Every instance along `axis_name` gets the value of instance `source` (XLA's
    CollectiveBroadcast; any pytree). Computed as JAX defines it: a psum of `x` masked to
    `source` (JAX 0.10.2 itself has no CPU lowering and no working vmap rule for its own
    pbroadcast primitive; this form runs, and transforms, wherever psum does).

    >>> jax.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i")(jnp.arange(3.0))
    Array([2., 2., 2.], dtype=float32)
    """
    def one(leaf):
        zero = convert_element_type(np.zeros((), get_aval(leaf).dtype), get_aval(leaf).dtype)
        return psum(select(eq(axis_index(axis_name), np.int32(source)), leaf,
                           broadcast_in_dim(zero, get_aval(leaf).shape, ())), axis_name)
    return tree_map(one, x)


def ppermute(x, axis_name, perm):
    """Send member `src`'s `x` to member `dst` for each `(src, dst)` in `perm`; members
    nobody sends to get zeros. `x` may be a pytree.

        >>> jax.vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    names = _as_names(axis_name)
    perm = _check_perm(perm, _axis_size(names))
    return tree_map(lambda leaf: ppermute_p.bind(varying(leaf, names, "jax.lax.ppermute"),
                                                 axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """Member `i` gets the `x` of member `perm[i]` (`perm` a permutation of range(size)).

        >>> jax.vmap(lambda x: lax.pshuffle(x, 'i', [1, 0]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ------------------------------------------------------------------ several axes under vmap
# (the values stacked as gather_scatter.py says)
def _nesting_order(names) -> tuple:
    """`names` in the order their axes nest, outermost first (a shard_map's: its mesh's): the
    order of the device ids of a group, which JAX sorts for ppermute. (A batching rule runs
    above its own vmap's trace: that axis, not seen from there, is the innermost.)"""
    seen = [n for n, _ in reversed(visible_axes())]
    return tuple(sorted(names, key=lambda n: seen.index(n) if n in seen else len(seen)))


def _ppermute_several(axis_data, x, d, names, perm):
    """Member j gets the value of the member that sends to it (zeros if none), members
    numbered along the axes in their nesting order."""
    names = _nesting_order(names)
    everyone = _stack_all(axis_data, x, d, names)
    n = bu.shape(everyone)[0]
    source = {dst % n: src % n for src, dst in perm}     # receiver -> sender
    me = _member_index(axis_data, names)
    out = _pick(everyone, _pick(np.array([source.get(j, 0) for j in range(n)], np.int32), me, 0),
                0)
    if len(source) < n:            # members nobody sends to get zeros
        keep = _pick(np.array([j in source for j in range(n)]), me, 0)
        out = select(broadcast_in_dim(keep, bu.shape(out), (0,)), out,
                     broadcast_in_dim(np.zeros((), get_aval(out).dtype), bu.shape(out), ()))
    return out
