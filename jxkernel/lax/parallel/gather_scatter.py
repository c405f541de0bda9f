"""all_gather and reduce_scatter (psum_scatter), each the other's transpose, each primitive
with all its rules; and how every member's value is stacked, and picked from, under the vmap
of one of several axes, which ppermute and all_to_all use there too.

    >>> jax.vmap(lambda x: lax.all_gather(x, 'i'), axis_name='i')(jnp.arange(3.0)).shape
    (3, 3)
"""
from __future__ import annotations

import numpy as np

from ...core import vma
from ...core.avals import ShapedArray, get_aval
from ...core.primitive import Primitive, own_vma_rules
from ...tree_util import tree_flatten, tree_map, tree_unflatten
from ...xla import stablehlo as hlo
from ...transforms import batch_util as bu
from .. import _lowering as hl
from ..elementwise import mul
from ..reductions import reduce_sum
from ..shapes import canonicalize_axis, reshape, squeeze, transpose
from ..slicing import (GatherDimensionNumbers, dynamic_slice_in_dim, gather, index_in_dim,
                       slice_in_dim)
from ._common import (_as_names, _axis_size, _canonical_groups, _collective_attrs,
                      _group_rows, _no_groups_under_vmap, _on_devices, _per_member,
                      _register_linear_collective, varying)
from .all_reduce import psum_p
from .axis_indices import _member_index, axis_index


# ------------------------------------------------------------------ all_gather
all_gather_p = Primitive("all_gather")


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type, x.vma)


def _all_gather_lowering(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups,
                         axis_size, tiled):
    attrs = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval, axis = ctx.avals_in[0], all_gather_dimension
    if not tiled:         # gather along a new size-1 axis
        expanded = ShapedArray(aval.shape[:axis] + (1,) + aval.shape[axis:], aval.dtype)
        x = ctx.op1("stablehlo.reshape", [x], result_type=hl.aval_type(expanded))
    return ctx.op1("stablehlo.all_gather", [x],
                   attrs={"all_gather_dim": hlo.i64_attr(axis), **attrs})


def _all_gather_batching(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                         axis_index_groups, axis_size, tiled, prim=None):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
    if prim is None:                         # (all_gather_invariant has no groups)
        prim = all_gather_p
        params["axis_index_groups"] = axis_index_groups
    if axis_data.name not in axis_name:      # another axis's gather, done per example
        if d is bu.not_mapped:
            return prim.bind(x, all_gather_dimension=all_gather_dimension, **params), d
        x = bu.moveaxis(x, d, 0)
        return prim.bind(x, all_gather_dimension=all_gather_dimension + 1, **params), 0
    axis = all_gather_dimension
    if tuple(axis_name) == (axis_data.name,) and _on_devices(axis_data, axis_index_groups):
        # over devices: each member gathers its group's members (XLA's replica groups)
        n = axis_data.size
        rows, where = _group_rows(bu.bdim_at_front(x, d, n),
                                  _canonical_groups(axis_index_groups, n), n)
        return _per_member([_tiled(bu.moveaxis(r, 0, axis), axis, tiled) for r in rows],
                           [k for k, _ in where]), 0
    _no_groups_under_vmap(axis_index_groups)
    x = _stack_all(axis_data, x, d, axis_name)           # every member sees the whole stack
    x = bu.moveaxis(x, 0, axis)
    if tiled:
        shape = bu.shape(x)
        x = reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
    return x, bu.not_mapped


def _tiled(x, axis, tiled):
    """A stack along `axis` made one dimension with the next, if `tiled`."""
    if not tiled:
        return x
    shape = bu.shape(x)
    return reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


def _gather_scatter_transpose(to_prim, dim_param, to_dim_param):
    """all_gather and reduce_scatter are each other's transposes, with the same params and
    the gathered axis as the scattered one: member k's input reaches every member's output
    of a gather, so its cotangent is the sum of their cotangents' k-th blocks. It binds the
    primitive, not the wrapper: a pmap body is transposed outside the trace that knows the
    axis size, so that comes from the params."""
    def transpose(ct, x, **params):
        dim = params.pop(dim_param)
        return [to_prim.bind(ct, **{to_dim_param: dim}, **params)]
    return transpose


# JAX's values of all_gather's `to`, in the order its error lists them
_ALL_GATHER_TO = ("varying", "reduced", "invarying")


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """Every member's `x` stacked along `axis` (concatenated if `tiled`), on every member.
    `to="varying"` (JAX's default) types the result as varying over `axis_name` (its
    transpose is psum_scatter); `to="invarying"` as the same on every member of it (in a
    check_vma=True shard_map body: `typeof(y).mat.varying` without those axes; its transpose
    is each member's slice of the cotangent); `to="reduced"` as reduced over them (the same
    on every member, its cotangent unreduced there: its transpose is a psum_scatter of
    summands, JAX's unreduced_reduce_scatter).

        >>> jax.vmap(lambda x: lax.all_gather(x, 'i'), axis_name='i')(jnp.arange(3.0)).shape
        (3, 3)
    """
    if to not in _ALL_GATHER_TO:
        raise ValueError(f"Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                         f"values are: {set(_ALL_GATHER_TO)}")
    if to == "invarying":
        if axis_index_groups is not None:     # (JAX's bare NotImplementedError)
            raise NotImplementedError("jax.lax.all_gather(..., to='invarying') takes no "
                                      "axis_index_groups")
        return _all_gather_to(all_gather_invariant_p, x, axis_name, axis=axis, tiled=tiled)
    if to == "reduced":
        if axis_index_groups is not None:
            raise NotImplementedError("jax.lax.all_gather(..., to='reduced') takes no "
                                      "axis_index_groups")
        return _all_gather_to(all_gather_reduced_p, x, axis_name, axis=axis, tiled=tiled)
    names = _as_names(axis_name)
    groups = _canonical_groups(axis_index_groups, _axis_size(names))
    size = _axis_size(names) if groups is None else len(groups[0])
    leaves, tree = tree_flatten(x)

    def gather(leaf):
        leaf = varying(leaf, names, "jax.lax.all_gather")
        # (JAX's check: a tiled gather concatenates along an axis x has, an untiled one
        # stacks along a new one)
        a = canonicalize_axis(axis, len(get_aval(leaf).shape) + (0 if tiled else 1))
        return all_gather_p.bind(leaf, all_gather_dimension=a, axis_name=names,
                                 axis_index_groups=groups, axis_size=size, tiled=tiled)
    return tree_unflatten(tree, [gather(leaf) for leaf in leaves])


# ------------------------------------------------------------------ all_gather to='invarying'
# The same gather, typed as the same on every member of its axes (JAX's
# all_gather_invariant_p): a varying value in, an invariant one out. Its transpose is each
# member's own block of the (invariant) cotangent, by its axis index, which varies again.
all_gather_invariant_p = Primitive("all_gather_invariant")
own_vma_rules.add(all_gather_invariant_p)


def _all_gather_invariant_abstract_eval(x, *, all_gather_dimension, axis_name, axis_size,
                                        tiled):
    out = _all_gather_abstract_eval(x, all_gather_dimension=all_gather_dimension,
                                    axis_name=axis_name, axis_index_groups=None,
                                    axis_size=axis_size, tiled=tiled)
    return out.update(vma=frozenset(a for a in x.vma if a not in axis_name))


def _all_gather_invariant_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size,
                                    tiled):
    block = ct.aval.shape[all_gather_dimension] // axis_size
    own = dynamic_slice_in_dim(ct, axis_index(axis_name) * block, block,
                               axis=all_gather_dimension)
    return [own if tiled else squeeze(own, (all_gather_dimension,))]


def _all_gather_to(prim, x, axis_name, *, axis, tiled):
    """all_gather(..., to='invarying') and to='reduced': `prim` bound on each leaf (the
    invariant form takes each leaf varying over the axes first, as JAX's)."""
    names = _as_names(axis_name)
    if not names:
        return x
    size = _axis_size(names)

    def gather(leaf):
        if prim is all_gather_invariant_p:
            leaf = varying(leaf, names, "jax.lax.all_gather")
        a = canonicalize_axis(axis, len(get_aval(leaf).shape) + (0 if tiled else 1))
        return prim.bind(leaf, all_gather_dimension=a, axis_name=names, axis_size=size,
                         tiled=tiled)
    return tree_map(gather, x)


# ------------------------------------------------------------------ reduced and unreduced
# all_gather(..., to='reduced') (JAX's all_gather_reduced: Varying -> Reduced) and the
# psum_scatter of a value unreduced over its axes (unreduced_reduce_scatter: Unreduced ->
# Varying), each the other's transpose; the data is all_gather's and reduce_scatter's.
all_gather_reduced_p = Primitive("all_gather_reduced")
unreduced_reduce_scatter_p = Primitive("unreduced_reduce_scatter")
own_vma_rules.update((all_gather_reduced_p, unreduced_reduce_scatter_p))


def _sets_checked(x, axes, name, source, arrow, target):
    """x's (varying, unreduced, reduced), after JAX's checks of a `source` -> `target` one
    (none where the body's types are erased: an eager body's steps)."""
    unreduced, reduced = getattr(x, "ur", vma.NO_UR)
    if not vma.checked:
        return x.vma, unreduced, reduced
    have = {"varying": x.vma, "unreduced": unreduced, "reduced": reduced}
    if not have[source]:
        raise ValueError(f"{name} only accepts inputs that are {source}. Got "
                         f"{x.str_short(True)}")
    if not have[source] & axes:
        raise ValueError(f"{name} is a {arrow} collective. This means that the "
                         f"axis_name={tuple(axes)} passed to `{name}` must be present in "
                         f"jax.typeof(x).mat.{source}={have[source]}")
    if have[target] & axes:
        raise ValueError(f"{name}'s input cannot be {target} across the axis_name provided. "
                         f"Got x={x.str_short(True)} and axis_name={tuple(axes)}")
    return x.vma, unreduced, reduced


def _all_gather_reduced_abstract_eval(x, *, all_gather_dimension, axis_name, axis_size,
                                      tiled):
    axes = frozenset(axis_name)
    varying_, unreduced, reduced = _sets_checked(x, axes, "all_gather_reduced", "varying",
                                                 "Varying -> Reduced", "reduced")
    out = _all_gather_abstract_eval(x, all_gather_dimension=all_gather_dimension,
                                    axis_name=axis_name, axis_index_groups=None,
                                    axis_size=axis_size, tiled=tiled)
    if not vma.checked:
        return out
    return out.update(vma=varying_ - axes, ur=(unreduced, reduced | axes))


def _unreduced_reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_size,
                                            tiled):
    axes = frozenset(axis_name)
    varying_, unreduced, reduced = _sets_checked(x, axes, "unreduced_psum_scatter",
                                                 "unreduced", "Unreduced -> Varying",
                                                 "varying")
    out = _reduce_scatter_abstract_eval(x, axis_name=axis_name,
                                        scatter_dimension=scatter_dimension,
                                        axis_index_groups=None, axis_size=axis_size,
                                        tiled=tiled)
    if not vma.checked:
        return out
    return out.update(vma=varying_ | axes, ur=(unreduced - axes, reduced))


# ------------------------------------------------------------------ several axes under vmap
# A collective over several named axes met by the vmap of one of them, `a` (shard_map's NumPy
# rule batches its body over each manual mesh axis in turn): every member's value is stacked
# over all the axes in the order XLA numbers a multi-axis group (the names' order, first
# major; ppermute's: the axes' nesting, as JAX sorts each group's device ids), and each member
# takes its part by its index along them. The other axes' collectives are bound for their own
# traces, which meet them next. (Each member's index along them: axis_indices.py's
# _member_index; ppermute's and all_to_all's own steps: permute.py, alltoall.py.)


def _stack_all(axis_data, x, d, names):
    """Every member's `x` over the axes `names`, stacked in their order (the first major):
    the same [N, ...] on every member (not batched)."""
    x = bu.bdim_at_front(x, d, axis_data.size)           # [this axis's members, ...]
    rest = tuple(n for n in names if n != axis_data.name)
    if not rest:
        return x
    sizes = [_axis_size(n) for n in rest]
    x = all_gather_p.bind(x, all_gather_dimension=1, axis_name=rest, axis_index_groups=None,
                          axis_size=int(np.prod(sizes, dtype=np.int64)), tiled=False)
    shape = bu.shape(x)
    x = reshape(x, shape[:1] + tuple(sizes) + shape[2:])  # one dimension per axis, in order
    order = [0 if n == axis_data.name else 1 + rest.index(n) for n in names]
    x = transpose(x, tuple(order) + tuple(range(len(names), bu.ndim(x))))
    return reshape(x, (int(np.prod(shape[:2], dtype=np.int64)),) + shape[2:])


def _pick(v, index, axis):
    """Member k's slice of `v` at `index[k]` along `axis` (k along the vmapped axis, `index`
    batched there): [members, v's shape without `axis`]."""
    v = bu.moveaxis(v, axis, 0)
    rank, n = bu.ndim(v), bu.shape(index)[0]
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank)), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    return gather(v, reshape(index, (n, 1)), dnums, (1,) + bu.shape(v)[1:],
                  indices_are_sorted=False, unique_indices=False, mode="promise_in_bounds")


def _scatter_several(axis_data, y, names, k, n, tiled):
    """psum_scatter's sum `y` over this axis (not batched), summed over the other axes, of
    which member j keeps block j along dimension `k`."""
    rest = tuple(a for a in names if a != axis_data.name)
    y, = psum_p.bind(y, axes=rest, axis_index_groups=None)
    shape = bu.shape(y)
    if tiled:
        y = reshape(y, shape[:k] + (n, shape[k] // n) + shape[k + 1:])
    return _pick(y, _member_index(axis_data, names), k)


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
    if tuple(axis_name) == (axis_data.name,) and _on_devices(axis_data, axis_index_groups):
        return _grouped_scatter(axis_data, x, d, axis_index_groups, scatter_dimension,
                                tiled), 0
    _no_groups_under_vmap(axis_index_groups)
    if d is bu.not_mapped:         # the same value from every member: n times it
        y = mul(x, np.asarray(axis_data.size, get_aval(x).dtype))
    else:
        y = reduce_sum(x, (d,))
    if len(axis_name) > 1:
        return _scatter_several(axis_data, y, axis_name, scatter_dimension, axis_size, tiled), 0
    # member j keeps block j of the sum along scatter_dimension: that axis is the batch
    if tiled:
        shape = bu.shape(y)
        k = scatter_dimension
        y = reshape(y, shape[:k] + (axis_size, shape[k] // axis_size) + shape[k + 1:])
    return y, scatter_dimension


def _grouped_scatter(axis_data, x, d, axis_index_groups, dim, tiled):
    """Over devices (the NumPy backend's pmap and shard_map): the member at place p of its
    group gets block p of the sum over the group, as XLA's reduce_scatter with replica
    groups."""
    n = axis_data.size
    groups = _canonical_groups(axis_index_groups, n)
    rows, where = _group_rows(bu.bdim_at_front(x, d, n), groups, n)
    k = len(groups[0])
    blocks = []
    for r in rows:
        total = reduce_sum(r, (0,))
        size = bu.shape(total)[dim] // k if tiled else 1
        blocks += [slice_in_dim(total, p * size, (p + 1) * size, axis=dim) if tiled else
                   index_in_dim(total, p, dim, keepdims=False) for p in range(k)]
    return _per_member(blocks, [g * k + p for g, p in where])


# all_gather's rules are registered here, once reduce_scatter_p (its transpose) exists
_register_linear_collective(
    all_gather_p, _all_gather_abstract_eval, _all_gather_lowering, _all_gather_batching,
    _gather_scatter_transpose(reduce_scatter_p, "all_gather_dimension", "scatter_dimension"))
_register_linear_collective(
    all_gather_invariant_p, _all_gather_invariant_abstract_eval,
    lambda ctx, x, **params: _all_gather_lowering(ctx, x, axis_index_groups=None, **params),
    lambda axis_data, vals, dims, **params: _all_gather_batching(
        axis_data, vals, dims, axis_index_groups=None, prim=all_gather_invariant_p, **params),
    _all_gather_invariant_transpose)
_register_linear_collective(
    reduce_scatter_p, _reduce_scatter_abstract_eval, _reduce_scatter_lowering,
    _reduce_scatter_batching,
    _gather_scatter_transpose(all_gather_p, "scatter_dimension", "all_gather_dimension"))


def _all_gather_reduced_batching(axis_data, vals, dims, **params):
    """JAX 0.10.2 has no batching of all_gather(to='reduced') (its rule raises this, under
    vmap and in a vmapped shard_map body alike): gathering here would run what JAX refuses.
    Over the NumPy backend's devices (its shard_map, which XLA runs) it is all_gather's: each
    device gets the whole value, typed reduced."""
    if getattr(axis_data, "on_devices", False):
        return _all_gather_batching(axis_data, vals, dims, axis_index_groups=None,
                                    prim=all_gather_reduced_p, **params)
    raise NotImplementedError("Please file an issue at https://github.com/jax-ml/jax/issues")


_register_linear_collective(
    all_gather_reduced_p, _all_gather_reduced_abstract_eval,
    lambda ctx, x, **params: _all_gather_lowering(ctx, x, axis_index_groups=None, **params),
    _all_gather_reduced_batching,
    lambda ct, x, *, all_gather_dimension, **params: [unreduced_reduce_scatter_p.bind(
        ct, scatter_dimension=all_gather_dimension, **params)])
_register_linear_collective(
    unreduced_reduce_scatter_p, _unreduced_reduce_scatter_abstract_eval,
    lambda ctx, x, **params: _reduce_scatter_lowering(ctx, x, axis_index_groups=None,
                                                      **params),
    lambda axis_data, vals, dims, **params: _reduce_scatter_batching(  # (its values)
        axis_data, vals, dims, axis_index_groups=None, **params),
    lambda ct, x, *, scatter_dimension, **params: [all_gather_reduced_p.bind(
        ct, all_gather_dimension=scatter_dimension, **params)])


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """psum(x, axis_name), of which member i keeps only block i along `scatter_dimension`
    (that axis is removed unless `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> jax.vmap(lambda x: lax.psum_scatter(x, 'i'), axis_name='i')(xs)
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
        if getattr(get_aval(leaf), "ur", vma.NO_UR)[0] & frozenset(names):
            if groups is not None:       # (a value unreduced over the axes: its summands')
                raise NotImplementedError
            del params["axis_index_groups"]
            return unreduced_reduce_scatter_p.bind(leaf, **params)
        return reduce_scatter_p.bind(varying(leaf, names, "jax.lax.psum_scatter"), **params)
    return tree_map(bind, x)
