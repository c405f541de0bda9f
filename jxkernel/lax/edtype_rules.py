"""The physical rules (core/physical.py) of the shape primitives on values of extended dtypes
(typed keys, Flax's fp8_meta32, a user's): the same primitive on the data, its params
extended by the trailing element axes (the dtype's physical_element_aval's shape: (2,) for a
threefry key, () for a scalar element), which are never moved, sliced or indexed (as JAX's
rules keep an extended dtype's physical layout); to_edtype and from_edtype are the identity.

Each rule is `rule(in_avals, out_avals, *data, **params)`, the avals the logical ones.
"""
from __future__ import annotations

import numpy as np

from ..core.physical import element_aval, is_extended, physical_aval, physical_rules
from ..core.interpreter_primitives import (broadcast_in_dim_p, reshape_p, reshard_p,
                                           sharding_constraint_p, transpose_p)
from ..core.mesh import NamedSharding, PartitionSpec
from . import shapes as _shapes
from . import slicing as _slicing
from .slicing.gather_scatter import _default_fill_value
from . import elementwise as _elementwise
from . import reductions as _reductions
from .conversion import from_edtype_p, to_edtype_p
from .creation import empty2_p


def _key_dims(aval) -> tuple:
    """The element axes' sizes of the data of values of type `aval`."""
    return tuple(element_aval(aval.dtype).shape)


def _trailing(aval) -> tuple:
    """The positions of the element axes in the data of values of type `aval`."""
    n = len(aval.shape)
    return tuple(range(n, n + len(_key_dims(aval))))


def _rule(prim, params_of):
    """A rule binding `prim` on the data with `params_of(in_avals, out_avals, params)`."""
    def rule(in_avals, out_avals, *args, **params):
        return prim.bind(*args, **params_of(in_avals, out_avals, params))
    physical_rules[prim] = rule


def _out(params, out_avals, **changes):
    return {**params, **changes}


def _data_param(p, o) -> dict:
    """A `sharding` param for the data: the keys' (its element axes unsplit, _data_sharding),
    None where the keys' is None."""
    if "sharding" not in p:
        return {}
    s = p["sharding"]
    return {"sharding": _data_sharding(s, o[0]) if hasattr(s, "spec") else None}


_rule(reshape_p, lambda i, o, p: _out(
    p, o, new_sizes=tuple(p["new_sizes"]) + _key_dims(o[0]), dimensions=None,
    **_data_param(p, o)))
_rule(broadcast_in_dim_p, lambda i, o, p: _out(
    p, o, shape=tuple(p["shape"]) + _key_dims(o[0]),
    broadcast_dimensions=tuple(p["broadcast_dimensions"]) + _trailing(o[0]),
    **_data_param(p, o)))
_rule(transpose_p, lambda i, o, p: _out(p, o, permutation=tuple(p["permutation"]) +
                                        _trailing(i[0])))
_rule(_shapes.squeeze_p, lambda i, o, p: p)
_rule(_shapes.rev_p, lambda i, o, p: p)
_rule(_shapes.concatenate_p, lambda i, o, p: p)
_rule(_shapes.split_p, lambda i, o, p: p)
_rule(_shapes.unstack_p, lambda i, o, p: p)
_rule(_shapes.stack_p, lambda i, o, p: p)
_rule(_shapes.tile_p, lambda i, o, p: _out(p, o, reps=tuple(p["reps"]) +
                                           (1,) * len(_key_dims(i[0]))))
_rule(_elementwise.copy_p, lambda i, o, p: p)
_rule(sharding_constraint_p, lambda i, o, p: _out(p, o, sharding=physical_aval(
    o[0].update(sharding=p["sharding"])).split) if hasattr(p["sharding"], "spec") else p)


def _data_sharding(sharding, aval) -> NamedSharding:
    """`sharding` of values of type `aval` as its data's: the element axes unsplit."""
    spec = sharding.spec
    parts = tuple(spec.partitions) + (None,) * (len(aval.shape) - len(spec.partitions) +
                                                len(_key_dims(aval)))
    return NamedSharding(sharding.mesh, PartitionSpec(*parts, unreduced=spec.unreduced,
                                                      reduced=spec.reduced))


# (reshard: JAX's rule for keys keeps the element axes whole, as device_put of keys)
_rule(reshard_p, lambda i, o, p: _out(p, o, dst_sharding=_data_sharding(p["dst_sharding"], o[0])))
_rule(_slicing.slice_p, lambda i, o, p: _out(
    p, o, start_indices=tuple(p["start_indices"]) + (0,) * len(_key_dims(i[0])),
    limit_indices=tuple(p["limit_indices"]) + _key_dims(i[0]),
    strides=None if p["strides"] is None else tuple(p["strides"]) + (1,) * len(_key_dims(i[0]))))


def _dynamic_slice(in_avals, out_avals, operand, *starts, slice_sizes):
    key_dims = _key_dims(in_avals[0])
    zeros = [np.zeros((), in_avals[1].dtype if len(in_avals) > 1 else np.int32)] * len(key_dims)
    return _slicing.dynamic_slice_p.bind(operand, *starts, *zeros,
                                         slice_sizes=tuple(slice_sizes) + key_dims)


def _dynamic_update_slice(in_avals, out_avals, operand, update, *starts):
    key_dims = _key_dims(in_avals[0])
    zeros = [np.zeros((), in_avals[2].dtype if len(in_avals) > 2 else np.int32)] * len(key_dims)
    return _slicing.dynamic_update_slice_p.bind(operand, update, *starts, *zeros)


def _gather(in_avals, out_avals, operand, indices, *, dimension_numbers, slice_sizes, **params):
    dn = dimension_numbers
    out_rank = len(out_avals[0].shape)
    key_dims = _key_dims(in_avals[0])
    dn = dn._replace(offset_dims=tuple(dn.offset_dims) + tuple(
        range(out_rank, out_rank + len(key_dims))))
    if params.get("fill_value") is None and "fill_value" in params:
        # elements out of bounds get their data's fill (JAX's for uint32, for keys)
        params["fill_value"] = _default_fill_value(element_aval(in_avals[0].dtype).dtype)
    return _slicing.gather_p.bind(operand, indices, dimension_numbers=dn,
                                  slice_sizes=tuple(slice_sizes) + key_dims, **params)


def _scatter(in_avals, out_avals, operand, indices, updates, *, dimension_numbers, **params):
    dn = dimension_numbers
    rank = len(in_avals[2].shape)
    key_dims = _key_dims(in_avals[0])
    dn = dn._replace(update_window_dims=tuple(dn.update_window_dims) + tuple(
        range(rank, rank + len(key_dims))))
    return _slicing.scatter_p.bind(operand, indices, updates, dimension_numbers=dn, **params)


def _select_n(in_avals, out_avals, which, *cases):
    # the predicate of each element is that of each of its data words
    aval = out_avals[0]
    if in_avals[0].shape and _key_dims(aval):
        which = _shapes.broadcast_in_dim(which, tuple(aval.shape) + _key_dims(aval),
                                     tuple(range(len(aval.shape))))
    return _elementwise.select_n_p.bind(which, *cases)


def _comparison(reduce):
    """eq/ne of values of an extended dtype (JAX's _opaque_comparison_hlo): their data,
    broadcast to the result's shape, compared word by word, the words of each element
    reduced (all equal: and; any different: or)."""
    def rule(in_avals, out_avals, x, y, **params):
        out = out_avals[0]
        shape = tuple(out.shape) + _key_dims(in_avals[0])
        x, y = (v if tuple(a.shape) == tuple(out.shape) else _shapes.broadcast_in_dim(
            v, shape, tuple(range(len(shape) - np.ndim(v), len(shape))))
            for v, a in ((x, in_avals[0]), (y, in_avals[1])))
        words = rule.prim.bind(x, y, **params)
        axes = tuple(range(len(out.shape), len(shape)))
        return reduce(words, axes) if axes else words
    return rule


for _prim, _reduce in ((_elementwise.eq_p, _reductions.reduce_and),
                       (_elementwise.ne_p, _reductions.reduce_or)):
    physical_rules[_prim] = _comparison(_reduce)
    physical_rules[_prim].prim = _prim
physical_rules[_slicing.dynamic_slice_p] = _dynamic_slice
physical_rules[_slicing.dynamic_update_slice_p] = _dynamic_update_slice
physical_rules[_slicing.gather_p] = _gather
physical_rules[_slicing.scatter_p] = _scatter
physical_rules[_elementwise.select_n_p] = _select_n

def _empty2(in_avals, out_avals, *, dtype, memory_space):
    # an element's data, unspecified (zeros, as JAX's lowering)
    data = physical_aval(out_avals[0])
    return _shapes.broadcast_in_dim(empty2_p.bind(dtype=data.dtype, memory_space=memory_space),
                                    data.shape, ())


physical_rules[empty2_p] = _empty2
physical_rules[to_edtype_p] = lambda i, o, x, **params: x
physical_rules[from_edtype_p] = lambda i, o, x, **params: x

__all__ = ["is_extended"]
