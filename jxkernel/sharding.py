"""jxkernel.sharding, as jax.sharding: meshes of devices, and how arrays are split over them.

    >>> from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))      # 8 devices
    >>> jax.device_put(np.zeros((8, 2)), NamedSharding(mesh, P('x'))).sharding.shard_shape((8, 2))
    (2, 2)

Arrays split over a mesh, and jit with shardings, are in xla/sharded.py; the classes here are
plain values (xla/sharding.py).
"""
import abc

from .xla.sharding import (  # noqa: F401
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
    get_mesh,
    set_mesh,
    use_mesh,
)
from .xla.sharding import Sharding as _Shardings


def get_abstract_mesh():
    """The AbstractMesh of the mesh set by set_mesh (an empty one when none is set)."""
    mesh = get_mesh()
    return AbstractMesh((), ()) if mesh is None else mesh.abstract_mesh


def reshard(xs, out_shardings):
    """Each array of `xs` laid out as `out_shardings` says (a sharding, or a matching pytree).

    >>> reshard(x, NamedSharding(mesh, P(None, 'x'))).sharding.spec
    P(None, 'x')
    """
    from .lax.sharding import with_sharding_constraint
    return with_sharding_constraint(xs, out_shardings)


class Sharding(abc.ABC):
    """The abstract type of shardings: `isinstance(x.sharding, jax.sharding.Sharding)`."""


for _kind in _Shardings:
    Sharding.register(_kind)
