"""Collectives that move data between members of a named axis: ppermute (and pshuffle),
all_to_all (and pswapaxes), psum_scatter, plus axis_size.

    >>> vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 0)]), axis_name='i')(xs)

As in parallel.py: under vmap with the collective's own axis each becomes an
ordinary array operation over the batch dimension; over another axis it passes
through per example; under pmap it lowers to the StableHLO collective
(collective_permute, all_to_all, reduce_scatter) across replicas.
"""
from __future__ import annotations

import numpy as np

from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    impl_rules,
    lowering_rules,
)
from ..tree_util import tree_map
from ..xla import stablehlo as hlo
from . import _batch_util as bu
from . import _lowering as hl
from ._ad_util import deflinear2
from .parallel import (
    _CHANNEL,
    _as_names,
    _axis_size,
    _canonical_groups,
    _collective_attrs,
    _manual,
    _no_groups_under_vmap,
    _replica_groups,
    _unbound,
    mesh_groups,
    varying,
)


def _raise_unbound(x=None, *, axis_name, **_):
    raise _unbound(_as_names(axis_name)[0])


def _one_axis_under_vmap(name, axis_name):
    if len(_as_names(axis_name)) > 1:
        raise NotImplementedError(f"{name} over several axes at once ({axis_name}) is not "
                                  f"supported under vmap: use one axis name at a time")


# ------------------------------------------------------------------ ppermute
ppermute_p = Primitive("ppermute")


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    manual = _manual(ctx, _as_names(axis_name))
    if manual is None:
        _replica_groups(ctx, axis_name)
    if not perm:                   # nobody receives anything
        return hl.splat(ctx, 0, ctx.avals_out[0].dtype, ctx.avals_out[0].shape)
    if manual is None:
        n = ctx.module_ctx.num_replicas
        return ctx.op1("stablehlo.collective_permute", [x], attrs={
            "source_target_pairs": hlo.dense_i64([[src % n, dst % n] for src, dst in perm])})
    # in a shard_map body: the pairs within each group of devices along the axes
    groups = mesh_groups(manual[0], _as_names(axis_name))
    n = len(groups[0])
    pairs = [[g[src % n], g[dst % n]] for g in groups for src, dst in perm]
    return ctx.op1("stablehlo.collective_permute", [x], attrs={
        "channel_handle": _CHANNEL, "source_target_pairs": hlo.dense_i64(pairs)})


def _ppermute_batching(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    _one_axis_under_vmap("ppermute", axis_name)
    n = axis_data.size
    source = {dst % n: src % n for src, dst in perm}     # receiver -> sender
    if d is bu.not_mapped and len(source) == n:          # everyone gets an equal value
        return x, d
    x = bu.bdim_at_front(x, d, n)
    from .gather import GatherDimensionNumbers, gather
    rank = bu.ndim(x)
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank)), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    idx = np.array([[source.get(j, 0)] for j in range(n)], np.int32)
    out = gather(x, idx, dnums, (1,) + bu.shape(x)[1:], indices_are_sorted=False,
                 unique_indices=len(source) == n, mode="promise_in_bounds")
    if len(source) < n:            # members nobody sends to get zeros
        from .elementwise import select
        from .shapes import broadcast_in_dim
        keep = np.array([j in source for j in range(n)])
        keep = broadcast_in_dim(keep, bu.shape(out), (0,))
        out = select(keep, out, broadcast_in_dim(np.zeros((), get_aval(out).dtype),
                                                  bu.shape(out), ()))
    return out, 0


def _ppermute_transpose(ct, x, *, axis_name, perm):
    # a permutation's transpose sends every value back where it came from
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


abstract_eval_rules[ppermute_p] = lambda x, *, axis_name, perm: x
impl_rules[ppermute_p] = _raise_unbound
lowering_rules[ppermute_p] = _ppermute_lowering
axis_batching_rules[ppermute_p] = _ppermute_batching
deflinear2(ppermute_p, _ppermute_transpose)


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


def ppermute(x, axis_name, perm):
    """Send member `src`'s `x` to member `dst` for each `(src, dst)` in `perm`; members
    nobody sends to get zeros. `x` may be a pytree.

        >>> vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    names = _as_names(axis_name)
    perm = _check_perm(perm, _axis_size(names))
    return tree_map(lambda leaf: ppermute_p.bind(varying(leaf, names, "jax.lax.ppermute"),
                                                 axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """Member `i` gets the `x` of member `perm[i]` (`perm` a permutation of range(size)).

        >>> vmap(lambda x: lax.pshuffle(x, 'i', [1, 0]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ------------------------------------------------------------------ all_to_all
# The primitive always has tiled semantics (split_axis shrinks by the group size,
# concat_axis grows by it); the untiled form adds and removes a size-1 axis around
# it, as JAX does. `axis_size` (the group size) is kept as a param so the equation
# types on its own; it is not printed, to print as JAX does.
all_to_all_p = Primitive("all_to_all")


def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                              tiled, axis_size):
    shape = list(x.shape)
    if shape[split_axis] % axis_size:
        raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) has to be "
                         f"divisible by the size of the named axis {axis_name} ({axis_size})")
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return ShapedArray(shape, x.dtype, False, x.vma)


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                         tiled, axis_size):
    attrs = _collective_attrs(ctx, _as_names(axis_name), axis_index_groups, global_ids=False)
    if axis_size == 1:
        return x
    return ctx.op1("stablehlo.all_to_all", [x],
                   attrs={"split_dimension": hlo.i64_attr(split_axis),
                          "concat_dimension": hlo.i64_attr(concat_axis),
                          "split_count": hlo.i64_attr(axis_size), **attrs})


def _all_to_all_batching(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                         axis_index_groups, tiled, axis_size):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled,
                  axis_size=axis_size)
    if axis_data.name not in _as_names(axis_name):
        if d is bu.not_mapped:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                     **params), d
        x = bu.moveaxis(x, d, 0)
        return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                                 **params), 0
    _no_groups_under_vmap(axis_index_groups)
    _one_axis_under_vmap("all_to_all", axis_name)
    from .shapes import reshape
    n = axis_size
    x = bu.bdim_at_front(x, d, n)                  # x[k]: member k's value
    shape = bu.shape(x)
    s = split_axis + 1                             # split into (chunk j, piece)
    x = reshape(x, shape[:s] + (n, shape[s] // n) + shape[s + 1:])
    x = bu.moveaxis(x, s, 0)                       # [j, k, ...]: j becomes the batch
    c = concat_axis + 1                            # k goes in front of the concat axis
    x = bu.moveaxis(x, 1, c)
    shape = bu.shape(x)
    return reshape(x, shape[:c] + (shape[c] * shape[c + 1],) + shape[c + 2:]), 0


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                          tiled, axis_size):
    # the inverse shuffle: split what was concatenated, concatenate what was split
    return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                              concat_axis=split_axis, axis_index_groups=axis_index_groups,
                              tiled=tiled, axis_size=axis_size)]


abstract_eval_rules[all_to_all_p] = _all_to_all_abstract_eval
impl_rules[all_to_all_p] = _raise_unbound
lowering_rules[all_to_all_p] = _all_to_all_lowering
axis_batching_rules[all_to_all_p] = _all_to_all_batching
deflinear2(all_to_all_p, _all_to_all_transpose)
param_printers[all_to_all_p] = lambda p: sorted((k, v) for k, v in p.items() if k != "axis_size")


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split `x` along `split_axis` into one chunk per member, send chunk j to member j, and
    stack what arrives along `concat_axis` (concatenate if `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_name='i')(xs)   # a transpose
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    from .shapes import expand_dims, squeeze
    groups = _canonical_groups(axis_index_groups, _axis_size(_as_names(axis_name)))
    size = _axis_size(_as_names(axis_name)) if groups is None else len(groups[0])

    def bind(leaf, split=split_axis, concat=concat_axis):
        ndim = bu.ndim(leaf)
        split = _axis_in(split, ndim, "split_axis")
        concat = _axis_in(concat, ndim, "concat_axis")
        n = bu.shape(leaf)[split]
        if tiled and n % size:
            raise ValueError(f"The size of all_to_all split_axis ({n}) has to be divisible by "
                             f"the size of the named axis {axis_name} ({size})")
        if not tiled:
            if n != size:
                raise ValueError(f"all_to_all requires the size of the mapped axis axis_name to "
                                 f"equal x.shape[split_axis], but they are {size} and {n} "
                                 f"respectively.")
            if split < concat:       # concat_axis counts positions after split_axis is gone
                concat += 1
                leaf = expand_dims(leaf, (concat,))
            elif split > concat:
                leaf = expand_dims(leaf, (concat,))
                split += 1
        leaf = varying(leaf, _as_names(axis_name), "jax.lax.all_to_all")
        out = all_to_all_p.bind(leaf, axis_name=axis_name, split_axis=split, concat_axis=concat,
                                axis_index_groups=groups, tiled=tiled, axis_size=size)
        if not tiled and split != concat:
            out = squeeze(out, (split,))
        return out
    return tree_map(bind, x)


def _axis_in(axis, ndim, what):
    if not -ndim <= axis < ndim:
        raise ValueError(f"all_to_all {what}={axis} is out of range for an operand of rank "
                         f"{ndim}")
    return axis % ndim


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the named (mapped) axis with positional `axis` of `x`: all_to_all(x, axis_name,
    axis, axis).

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.pswapaxes(x, 'i', 0), axis_name='i')(xs)
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ------------------------------------------------------------------ psum_scatter
reduce_scatter_p = Primitive("reduce_scatter")


def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_index_groups,
                                  axis_size, tiled):
    shape = list(x.shape)
    n = shape[scatter_dimension]
    if tiled:
        if n % axis_size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be "
                             f"divisible by shard_count {axis_size}")
        shape[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match "
                             f"shard count {axis_size}")
        del shape[scatter_dimension]
    return ShapedArray(shape, x.dtype, x.weak_type, x.vma)


def _reduce_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_index_groups,
                             axis_size, tiled):
    attrs = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval = ctx.avals_in[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    region = hl.binary_region(ctx, "stablehlo.add", aval.dtype)
    out = ctx.op1("stablehlo.reduce_scatter", [x],
                  attrs={"scatter_dimension": hlo.i64_attr(scatter_dimension), **attrs},
                  regions=[region], result_type=hlo.tensor_type(tuple(shape), aval.dtype))
    return out if tiled else ctx.op1("stablehlo.reshape", [out])


def _reduce_scatter_batching(axis_data, vals, dims, *, axis_name, scatter_dimension,
                             axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        if d is bu.not_mapped:
            return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension, **params), d
        x = bu.moveaxis(x, d, 0)
        return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0
    _no_groups_under_vmap(axis_index_groups)
    _one_axis_under_vmap("psum_scatter", axis_name)
    from .elementwise import mul
    from .reductions import reduce_sum
    from .shapes import reshape
    if d is bu.not_mapped:         # the same value from every member: n times it
        y = mul(x, np.asarray(axis_data.size, get_aval(x).dtype))
    else:
        y = reduce_sum(x, (d,))
    # member j keeps block j of the sum along scatter_dimension: that axis is the batch
    if tiled:
        shape = bu.shape(y)
        k = scatter_dimension
        y = reshape(y, shape[:k] + (axis_size, shape[k] // axis_size) + shape[k + 1:])
    return y, scatter_dimension


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_index_groups,
                              axis_size, tiled):
    # binds the primitive, not the wrapper: transposing a pmap body happens outside the
    # trace that knows the axis size, so it comes from the params
    from .parallel import all_gather_p
    return [all_gather_p.bind(ct, all_gather_dimension=scatter_dimension, axis_name=axis_name,
                              axis_index_groups=axis_index_groups, axis_size=axis_size,
                              tiled=tiled)]


abstract_eval_rules[reduce_scatter_p] = _reduce_scatter_abstract_eval
impl_rules[reduce_scatter_p] = _raise_unbound
lowering_rules[reduce_scatter_p] = _reduce_scatter_lowering
axis_batching_rules[reduce_scatter_p] = _reduce_scatter_batching
deflinear2(reduce_scatter_p, _reduce_scatter_transpose)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """psum(x, axis_name), of which member i keeps only block i along `scatter_dimension`
    (that axis is removed unless `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.psum_scatter(x, 'i'), axis_name='i')(xs)
        Array([2., 4.], dtype=float32)
    """
    names = _as_names(axis_name)
    groups = _canonical_groups(axis_index_groups, _axis_size(names))
    size = _axis_size(names) if groups is None else len(groups[0])

    def bind(leaf):
        ndim = bu.ndim(leaf)
        if not -ndim <= scatter_dimension < ndim:
            raise ValueError(f"psum_scatter scatter_dimension={scatter_dimension} is out of "
                             f"range for an operand of rank {ndim}")
        params = dict(axis_name=names, scatter_dimension=scatter_dimension % ndim,
                      axis_index_groups=groups, axis_size=size, tiled=tiled)
        _reduce_scatter_abstract_eval(get_aval(leaf), **params)   # vmap's rule never types it
        return reduce_scatter_p.bind(varying(leaf, names, "jax.lax.psum_scatter"), **params)
    return tree_map(bind, x)


# ------------------------------------------------------------------ axis_size
def axis_size(axis_name) -> int:
    """The size of the named axis (a Python int; the product for a tuple of names).

        >>> vmap(lambda x: x * lax.axis_size('i'), axis_name='i')(jnp.ones(3))
        Array([3., 3., 3.], dtype=float32)
    """
    return _axis_size(axis_name)
