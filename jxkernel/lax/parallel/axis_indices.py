"""Where a member stands along a named axis: axis_index (its primitive and rules: lowered
from the partition id, batched under vmap to each member's index, over several axes too) and
on it pargmax and pargmin, the index of the member holding the largest or smallest value.

    >>> jax.vmap(lambda x: lax.axis_index('i'), axis_name='i')(jnp.ones(3))
    Array([0, 1, 2], dtype=int32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core import vma
from ...core.avals import ShapedArray, get_aval
from ...core.ir import param_printers
from ...core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                               lowering_rules)
from ...xla import stablehlo as hlo
from ...xla.lowering import LoweringRuleContext
from ...transforms import batch_util as bu
from ...transforms.ad_util import defjvp_zero
from ..elementwise import add, eq, mul, select
from ..shapes import broadcast_in_dim, iota
from ._common import _as_names, _axis_size, _bound, _check_bound, _raise_unbound
from .all_reduce import pmax, pmin


# ------------------------------------------------------------------ axis_index
axis_index_p = Primitive("axis_index")
abstract_eval_rules[axis_index_p] = lambda *, axis_name: ShapedArray(
    (), np.int32, vma=frozenset(_as_names(axis_name)) if vma.checks(_as_names(axis_name))
    else vma.NO_AXES)
impl_rules[axis_index_p] = _raise_unbound
param_printers[axis_index_p] = lambda p: [("axis_name", p["axis_name"])]
defjvp_zero(axis_index_p)


def _axis_index_lowering(ctx, *, axis_name):
    names = _as_names(axis_name)
    manual = _bound(ctx, names)
    rest = [a for a in manual[0].axis_names if a not in manual[1]]
    if rest:
        return _all_manual(ctx, rest, lambda inner: _mesh_axis_index(inner, manual[0], names))
    return _mesh_axis_index(ctx, manual[0], names)


def _all_manual(ctx, rest, emit):
    """`emit(inner_ctx)`'s scalar lowered where the still automatic mesh axes `rest` are made
    manual too: partition_id means one device only there (JAX nests a manual computation)."""
    block = ctx.new_block([])
    inner = LoweringRuleContext(ctx.module_ctx, block, [], ctx.avals_out, ctx.source_info)
    block.ret([emit(inner)], op="sdy.return")
    manual = ", ".join(f'"{a}"' for a in rest)
    return ctx.op1("sdy.manual_computation", [], regions=[block], attrs={
        "in_shardings": "#sdy.sharding_per_value<[]>",
        "out_shardings": "#sdy.sharding_per_value<[<@mesh, []>]>",
        "manual_axes": f"#sdy<manual_axes{{{manual}}}>"},
        result_type=hlo.tensor_type((), np.int32))


def _mesh_axis_index(ctx, mesh, names):
    """This device's index along mesh axes `names` (the first major), from its partition id."""
    u32 = hlo.tensor_type((), np.uint32)
    pid = ctx.op1("stablehlo.partition_id", [], result_type=u32)
    index = None
    for name in names:
        k = mesh.axis_names.index(name)
        stride = int(np.prod(mesh.axis_sizes[k + 1:], dtype=np.int64))
        size = mesh.axis_sizes[k]
        i = ctx.op1("stablehlo.divide", [pid, ctx.constant(stride, np.uint32)], result_type=u32)
        i = ctx.op1("stablehlo.remainder", [i, ctx.constant(size, np.uint32)], result_type=u32)
        if index is not None:
            scaled = ctx.op1("stablehlo.multiply", [index, ctx.constant(size, np.uint32)],
                             result_type=u32)
            i = ctx.op1("stablehlo.add", [scaled, i], result_type=u32)
        index = i
    return ctx.op1("stablehlo.convert", [index])


def _axis_index_batching(axis_data, vals, dims, *, axis_name):
    names = _as_names(axis_name)
    if axis_data.name not in names:
        return axis_index_p.bind(axis_name=axis_name), bu.not_mapped
    return _member_index(axis_data, names), 0


lowering_rules[axis_index_p] = _axis_index_lowering
axis_batching_rules[axis_index_p] = _axis_index_batching


def axis_index(axis_name):
    """This member's position (int32) along the named axis."""
    _check_bound(_as_names(axis_name), "axis_index")
    return axis_index_p.bind(axis_name=axis_name)


# ------------------------------------------------------------------ each member's index under vmap
# (over several axes at once: how gather_scatter.py's stacked values are indexed)
def _strides(axis_data, names) -> list:
    """Per axis of `names`, how far apart its members are numbered (the first major)."""
    sizes = [axis_data.size if n == axis_data.name else _axis_size(n) for n in names]
    return [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(len(names))]


def _member_index(axis_data, names):
    """Each member's index along `names` (the first major), batched along `axis_data`'s axis:
    its position there scaled, plus its index along the other axes (bound for their traces)."""
    index = iota(np.int32, axis_data.size)
    if names == (axis_data.name,):
        return index
    strides = _strides(axis_data, names)
    index = mul(index, np.int32(strides[names.index(axis_data.name)]))
    for name, stride in zip(names, strides):
        if name != axis_data.name:
            other = mul(axis_index_p.bind(axis_name=(name,)), np.int32(stride))
            index = add(index, broadcast_in_dim(other, (axis_data.size,), ()))
    return index


# ------------------------------------------------------------------ pargmax / pargmin
def pargmax(x, axis_name):
    """The index along the named axis of the member holding the largest `x`, elementwise
    (the first such member on ties); every member gets it. One axis only, as JAX's.

    >>> jax.vmap(lambda x: pargmax(x, "i"), axis_name="i")(jnp.array([1., 3., 2.]))
    Array([1, 1, 1], dtype=int32)
    """
    return _axis_index_of_val(x, pmax(x, _one_axis(axis_name)), axis_name)


def pargmin(x, axis_name):
    """The index along the named axis of the member holding the smallest `x` (see pargmax)."""
    return _axis_index_of_val(x, pmin(x, _one_axis(axis_name)), axis_name)


def _one_axis(axis_name):
    if isinstance(axis_name, (tuple, list)):
        # JAX's words, for pargmax too
        raise TypeError(f"pargmin only accepts a single axis, got {axis_name}")
    return axis_name


def _axis_index_of_val(x, val, axis_name):
    """The smallest index along the axis of the members whose `x` is `val` (JAX's: the index
    where they match, the int32 maximum elsewhere, reduced by pmin)."""
    idx = axis_index(axis_name)
    mask = eq(val, x)
    big = dtypes.iinfo(get_aval(idx).dtype).max
    return pmin(select(mask, broadcast_in_dim(idx, mask.shape, ()),
                       broadcast_in_dim(np.array(big, get_aval(idx).dtype), mask.shape, ())),
                axis_name)
