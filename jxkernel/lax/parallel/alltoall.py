"""all_to_all (its primitive, tiled, its own transpose with the axes swapped) and pswapaxes
on it. (The module is not named all_to_all: importing it would set the package's attribute
`all_to_all`, the function, to the module.)

    >>> jax.vmap(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_name='i')(jnp.arange(4.).reshape(2, 2))
    Array([[0., 2.],
           [1., 3.]], dtype=float32)
"""
from __future__ import annotations

from ...core.avals import ShapedArray
from ...core.ir import param_printers
from ...core.primitive import Primitive
from ...tree_util import tree_map
from ...xla import stablehlo as hlo
from ...transforms import batch_util as bu
from ..shapes import expand_dims, reshape, squeeze
from ..slicing import index_in_dim
from ._common import (_as_names, _axis_size, _canonical_groups, _collective_attrs,
                      _group_rows, _no_groups_under_vmap, _on_devices, _per_member,
                      _register_linear_collective, varying)
from .axis_indices import _member_index
from .gather_scatter import _pick, _stack_all


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
    if _as_names(axis_name) == (axis_data.name,) and _on_devices(axis_data, axis_index_groups):
        # over devices (the NumPy backend's pmap and shard_map): within each group, as XLA's
        # replica groups
        n = axis_data.size
        groups = _canonical_groups(axis_index_groups, n)
        rows, where = _group_rows(bu.bdim_at_front(x, d, n), groups, n)
        k = len(groups[0])
        outs = [index_in_dim(_shuffle(r, k, split_axis, concat_axis), p, 0, keepdims=False)
                for r in rows for p in range(k)]
        return _per_member(outs, [g * k + p for g, p in where]), 0
    _no_groups_under_vmap(axis_index_groups)
    if len(_as_names(axis_name)) > 1:
        return _all_to_all_several(axis_data, x, d, _as_names(axis_name), split_axis,
                                   concat_axis, axis_size), 0
    return _shuffle(bu.bdim_at_front(x, d, axis_size), axis_size, split_axis, concat_axis), 0


def _shuffle(x, n, split_axis, concat_axis):
    """The all_to_all of the n members' values x[k] (batched at 0), batched at 0."""
    shape = bu.shape(x)
    s = split_axis + 1                             # split into (chunk j, piece)
    x = reshape(x, shape[:s] + (n, shape[s] // n) + shape[s + 1:])
    x = bu.moveaxis(x, s, 0)                       # [j, k, ...]: j becomes the batch
    c = concat_axis + 1                            # k goes in front of the concat axis
    x = bu.moveaxis(x, 1, c)
    shape = bu.shape(x)
    return reshape(x, shape[:c] + (shape[c] * shape[c + 1],) + shape[c + 2:])


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                          tiled, axis_size):
    # the inverse shuffle: split what was concatenated, concatenate what was split
    return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                              concat_axis=split_axis, axis_index_groups=axis_index_groups,
                              tiled=tiled, axis_size=axis_size)]


_register_linear_collective(all_to_all_p, _all_to_all_abstract_eval, _all_to_all_lowering,
                            _all_to_all_batching, _all_to_all_transpose)
param_printers[all_to_all_p] = lambda p: sorted((k, v) for k, v in p.items() if k != "axis_size")


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split `x` along `split_axis` into one chunk per member, send chunk j to member j, and
    stack what arrives along `concat_axis` (concatenate if `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> jax.vmap(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_name='i')(xs)   # a transpose
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
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
        >>> jax.vmap(lambda x: lax.pswapaxes(x, 'i', 0), axis_name='i')(xs)
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ------------------------------------------------------------------ several axes under vmap
# (the values stacked as gather_scatter.py says)
def _all_to_all_several(axis_data, x, d, names, split_axis, concat_axis, n):
    """Member j gets chunk j (along `split_axis`) of every member's value, concatenated along
    `concat_axis` in the members' order."""
    everyone = _stack_all(axis_data, x, d, names)         # [sender, ...]
    shape, s = bu.shape(everyone), split_axis + 1
    everyone = reshape(everyone, shape[:s] + (n, shape[s] // n) + shape[s + 1:])
    y = _pick(everyone, _member_index(axis_data, names), s)   # [receiver, sender, ...]
    c = concat_axis + 1                                   # senders in front of the concat axis
    y = bu.moveaxis(y, 1, c)
    shape = bu.shape(y)
    return reshape(y, shape[:c] + (shape[c] * shape[c + 1],) + shape[c + 2:])
