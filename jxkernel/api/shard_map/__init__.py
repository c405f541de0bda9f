"""shard_map: write the per-device program yourself, with collectives over mesh axes.

    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> f = shard_map(lambda a: lax.psum(a, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())
    >>> f(jnp.arange(8.0)).tolist()                  # each device holds 2; the 4 blocks summed
    [12.0, 16.0]

The body is traced once with *local* shapes (each dimension divided by the mesh axes its
in_spec names) into a `shard_map` equation whose outputs have *global* shapes (out_specs say
how the local blocks are put together). The equation lowers to Shardy's
`sdy.manual_computation` inside a program partitioned over the mesh (xla/sharded.py); in its
body the collectives of lax/parallel/ address devices by their position in the mesh
(`mesh_groups`). A shard_map run eagerly, or under a jit without shardings, is partitioned
over its own mesh.

This package, one module per job (this one is the public function; the names below stay
importable from here, as from JAX's `jax._src.shard_map`):

- `primitive.py`: the `shard_map` primitive and its rules (lowering, jvp, transpose, vmap)
- `numpy_rule.py`: its rule on the NumPy backend (each manual axis a vmap axis)
- `call.py`: a call's path: the checks, then an eager run or one traced equation
- `checks.py`: the mesh, specs, ranks and check_vma checks, with JAX's errors
- `eager.py`: the eager run, device by device
- `residuals.py`: partial eval (linearize) and checkpoint policies through a body
- `smap.py`: `jax.smap`, shard_map over one axis with vmap-like in_axes/out_axes
- `top_level_collectives.py`: collectives over sharded arrays outside a shard_map
"""
from __future__ import annotations

from .call import _shard_map
from .checks import Infer
from .eager import ShardMapTrace, ShardMapTracer
from .primitive import P, shard_map_p
from .smap import smap
from .top_level_collectives import top_level_all_gather  # noqa: F401  (JAX's there)

__all__ = ["Infer", "P", "ShardMapTrace", "ShardMapTracer", "shard_map", "shard_map_p", "smap"]


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map `f` over the blocks of its arguments on the devices of `mesh` (see the module
    docstring); usable as a decorator with keyword arguments.

    >>> @functools.partial(shard_map, mesh=mesh, in_specs=P('x'), out_specs=P('x'))
    ... def scale(block):
    ...     return block * (lax.axis_index('x') + 1)
    >>> scale(jnp.ones(8)).tolist()
    [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]

    With `check_vma` (the default) the body's types carry the manual axes each value
    varies over (`jax.typeof(x).mat.varying`, core/vma.py): `pvary` is inserted where a
    value the same on every device meets a varying one, psum becomes `psum_invariant`, and
    an output whose out_spec leaves out an axis it varies over raises JAX's error. `grad`
    taken inside the body then sums a replicated input's gradient over the devices (the
    transpose of pvary is a psum), as JAX does; with check_vma=False each device keeps its
    own. Specs with unreduced or reduced axes (`P(unreduced={'x'})`, Explicit axes) type
    the body's values so too (`.mat.unreduced`, `.mat.reduced`): each device's block is a
    summand, or a copy whose cotangent is one. `axis_names` may name some of the mesh axes
    only: the body is manual over those and XLA partitions it over the others (typed over
    the Explicit ones), where another shard_map (without `mesh`) may be manual over them.
    """
    kwargs = dict(out_specs=out_specs, in_specs=in_specs, mesh=mesh, axis_names=axis_names,
                  check_vma=check_vma)
    if f is None:
        return lambda g: _shard_map(g, **kwargs)
    return _shard_map(f, **kwargs)
