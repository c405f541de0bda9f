"""Collectives over explicitly sharded arrays outside a shard_map, as JAX 0.10.2's
(jax._src.shard_map's "top level collectives"): `top_level_all_gather(x, out_sharding)`
gathers each dimension whose out spec drops mesh axes into those axes as reduced ones, a
jitted shard_map of `lax.all_gather(..., tiled=True, to='reduced')` per such dimension, so
the value is unchanged (`top_level_all_gather(x, ...) == x`) and its type says which copies
are reduced.

    >>> import numpy as np, jxkernel as jax
    >>> from jxkernel.sharding import PartitionSpec as P
    >>> with jax.set_mesh(jax.make_mesh((2,), ('x',))):
    ...     out = top_level_all_gather(jax.device_put(np.arange(4.), P('x')), P(reduced={'x'}))
    >>> out.sharding.spec
    P(None, reduced={'x'})
"""
from __future__ import annotations

from ...core.config import config
from ...core.mesh import PartitionSpec, get_abstract_mesh
from ...lax.parallel.gather_scatter import all_gather
from ...lax.sharding import canonicalize_sharding
from ...transforms.api_util import flatten_axis_resources
from ...transforms.jit import jit
from ...tree_util import tree_flatten, tree_unflatten
from ...core.avals import typeof
from .call import _shard_map
from .checks import Infer


def _normalized(spec: PartitionSpec, ndim: int) -> PartitionSpec:
    """`spec` with a partition per dimension (None past its own; UNCONSTRAINED as None)."""
    parts = [None if p is PartitionSpec.UNCONSTRAINED else p for p in spec.partitions]
    parts += [None] * (ndim - len(parts))
    return PartitionSpec(*parts, unreduced=spec.unreduced, reduced=spec.reduced)


def _without_size_one_axes(spec: PartitionSpec, mesh) -> PartitionSpec:
    """`spec` less the mesh axes of size 1 (jax_remove_size_one_mesh_axis_from_type)."""
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    parts = []
    for p in spec.partitions:
        if p is None or p is PartitionSpec.UNCONSTRAINED:
            parts.append(p)
        elif isinstance(p, tuple):
            parts.append(tuple(a for a in p if sizes[a] != 1))
        else:
            parts.append(None if sizes[p] == 1 else p)
    return PartitionSpec(*parts, unreduced=frozenset(u for u in spec.unreduced if sizes[u] != 1),
                         reduced=frozenset(r for r in spec.reduced if sizes[r] != 1))


def _top_level_ag(x, aval, out_sharding, multi_dim: bool):
    out_sh = canonicalize_sharding(out_sharding, "top_level_all_gather")
    if out_sh is None:
        raise ValueError(
            f"out_sharding passed to top_level_all_gather cannot be {out_sharding}. It"
            " should be a PartitionSpec or NamedSharding.")
    if aval.sharding.mesh != out_sh.mesh:
        raise ValueError(f"Input sharding mesh {aval.sharding.mesh} should be equal to"
                         f" out_sharding mesh {out_sh.mesh}")
    in_spec = aval.sharding.spec
    out_spec = _normalized(out_sh.spec, len(in_spec.partitions))
    if config.jax_remove_size_one_mesh_axis_from_type:
        out_spec = _without_size_one_axes(out_spec, out_sh.mesh)

    def body(x):
        count = 0
        for axis, (i, o) in enumerate(zip(in_spec.partitions, out_spec.partitions)):
            if i == o:
                continue
            if not multi_dim and count > 0:
                raise ValueError(
                    "multiple dimensions cannot be all_gathered since multi_dim=False"
                    f" passed to `top_level_all_gather`. Got {in_spec=} and {out_spec=}")
            count += 1
            if i is None:
                raise ValueError(
                    f"top_level_all_gather doesn't allow input {aval} to be unsharded"
                    f" on dimension {axis} when {out_spec=}.")
            i = i if isinstance(i, tuple) else (i,)
            o = o if o is None or isinstance(o, tuple) else (o,)
            if o is not None and i[:len(o)] != o:
                raise ValueError(
                    "top_level_all_gather maintains `top_level_all_gather(x, ...) == x`"
                    f" property. The {in_spec=} and {out_spec=} don't satisfy this"
                    f" property. Please change your out_spec of array dimension {axis} so"
                    " that it's a prefix of in_spec")
            # (JAX's slice, kept: the axes past the out spec's prefix)
            axis_name = i if o is None else i[-len(o):]
            x = all_gather(x, axis_name=axis_name, axis=axis, tiled=True, to="reduced")
        return x
    return jit(_shard_map(body, out_specs=out_spec, in_specs=Infer, mesh=None,
                          axis_names=frozenset(), check_vma=True))(x)


def top_level_all_gather(xs, out_sharding, *, multi_dim: bool = False):
    """Each array of `xs` gathered, outside a shard_map, into the reduced axes of its
    `out_sharding` (a PartitionSpec under `jax.set_mesh` of Explicit axes, or a NamedSharding):
    its value unchanged, its type's spec `out_sharding`'s. One dimension only unless
    `multi_dim`; JAX's ValueErrors for an unsharded dimension and an out spec that is no
    prefix of the input's."""
    if not get_abstract_mesh().are_all_axes_explicit:
        raise ValueError(
            "top_level_all_gather works when all mesh axes of context mesh are"
            f" explicit. Got {get_abstract_mesh()}")
    x_flat, treedef = tree_flatten(xs)
    shardings = flatten_axis_resources("top_level_all_gather out_sharding", treedef,
                                       out_sharding, tupled_args=True)
    return tree_unflatten(treedef, [_top_level_ag(x, typeof(x), s, multi_dim)
                                    for x, s in zip(x_flat, shardings)])
