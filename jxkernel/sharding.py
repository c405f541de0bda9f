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
    _EMPTY_MESH,
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
    set_mesh,
    use_mesh,
)
from .xla.sharding import Sharding as _Shardings
from .xla.sharding import get_mesh as _current_mesh


def get_mesh() -> Mesh:
    """The mesh set by set_mesh (the empty mesh, `Mesh()`, when none is set).

    >>> get_mesh()
    Mesh(axis_sizes=(), axis_names=())
    """
    return _current_mesh() or _EMPTY_MESH


def get_abstract_mesh() -> AbstractMesh:
    """The AbstractMesh of the mesh set by set_mesh (an empty one when none is set).

    >>> get_abstract_mesh()
    AbstractMesh((), axis_types=())
    """
    return get_mesh().abstract_mesh


def reshard(xs, out_shardings):
    """Each array of `xs` laid out as `out_shardings` says (a sharding, or a matching pytree).

    >>> explicit = jax.make_mesh((4, 2), ('x', 'y'))              # Explicit axes
    >>> x = jax.device_put(np.zeros((8, 8)), NamedSharding(explicit, P('x')))
    >>> reshard(x, NamedSharding(explicit, P(None, 'x'))).sharding.spec
    P(None, 'x')
    """
    from .lax.sharding import reshard_p, with_sharding_constraint
    from .tree_util import tree_leaves
    from .xla.sharded import resolve
    for s in tree_leaves(out_shardings, is_leaf=lambda s: isinstance(s, PartitionSpec)):
        _check_explicit(resolve(s, "reshard"))
    from .core import avals
    avals.sharding_types_seen = True        # the result's type carries its sharding
    return with_sharding_constraint(xs, out_shardings, reshard_p)


def _check_explicit(sharding) -> None:
    """reshard moves data between Explicit axes only (Auto ones are XLA's to choose)."""
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    for axes in sharding.spec._axes(0):
        for a in axes:
            if types[a] is not AxisType.Explicit:
                raise ValueError(f"PartitionSpec passed to reshard cannot contain axis names "
                                 f"that are of type Auto or Manual. Got PartitionSpec: "
                                 f"{sharding.spec!r} with axis name: {a} of type: "
                                 f"{types[a]!s}.")


class Sharding(abc.ABC):
    """The abstract type of shardings: `isinstance(x.sharding, jax.sharding.Sharding)`."""


for _kind in _Shardings:
    Sharding.register(_kind)
