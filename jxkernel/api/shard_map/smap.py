"""smap (`jax.smap`): shard_map over one mesh axis of the context mesh, with vmap-like
`in_axes` and `out_axes` in place of PartitionSpecs."""
from __future__ import annotations

import functools

from ...core.mesh import AxisType, PartitionSpec, get_mesh
from ...tree_util import tree_flatten, tree_unflatten
from .call import _shard_map
from .checks import Infer


def _axis_spec(axis_name, axis) -> PartitionSpec:
    """The PartitionSpec splitting dimension `axis` over `axis_name` (None: replicated)."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """shard_map over the one mesh axis `axis_name` of the context mesh (`jax.set_mesh`),
    with vmap-like `in_axes`/`out_axes` saying which dimension each argument and result
    is split along (None: not split). `in_axes` may be left out on an Explicit axis.

    >>> with jax.set_mesh(jax.make_mesh((1,), ("x",), (jax.sharding.AxisType.Auto,))):
    ...     smap(lambda v: v * 2, in_axes=0, out_axes=0, axis_name="x")(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
    if in_axes is not None and in_axes is not Infer and not isinstance(in_axes, (int, tuple)):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of "
                        "entries corresponding to the positional arguments passed to the "
                        f"function, but got {in_axes}.")
    is_none = lambda x: x is None
    if in_axes is not Infer and not all(isinstance(a, int) for a in tree_flatten(
            in_axes, is_leaf=is_none)[0] if a is not None):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) "
                        f"container with those types as leaves, but got {in_axes}.")
    if not all(isinstance(a, int) for a in tree_flatten(out_axes, is_leaf=is_none)[0]
               if a is not None):
        raise TypeError("smap out_axes must be an int, None, or (nested) container with those "
                        f"types as leaves, but got {out_axes}.")
    spec = functools.partial(_axis_spec, axis_name)
    specs = functools.partial(_map_axes, spec)
    mapped = _shard_map(f, mesh=None, in_specs=Infer if in_axes is Infer else specs(in_axes),
                        out_specs=specs(out_axes), axis_names={axis_name}, check_vma=True)

    @functools.wraps(f)
    def call(*args):
        mesh = get_mesh()
        if in_axes is Infer and mesh is not None and axis_name in mesh.axis_names and \
                mesh.axis_types[mesh.axis_names.index(axis_name)] is not AxisType.Explicit:
            kind = mesh.axis_types[mesh.axis_names.index(axis_name)]
            raise TypeError(f"in_axes was not specified when "
                            f"axis_name={frozenset([axis_name])} was of type {kind}")
        return mapped(*args)
    return call


def _map_axes(spec, axes):
    """`axes` (an int, None or a pytree of them) with each entry a PartitionSpec."""
    leaves, tree = tree_flatten(axes, is_leaf=lambda x: x is None)
    return tree_unflatten(tree, [spec(a) for a in leaves])
