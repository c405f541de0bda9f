"""jxkernel._src.sharding_impls, as jax._src.sharding_impls: the mesh and sharding classes
(core/mesh.py) where libraries and reprs find JAX's.

    >>> set_mesh.__module__
    'jxkernel._src.sharding_impls'
"""
from ...core.mesh import (  # noqa: F401
    AbstractMesh,
    Mesh,
    NamedSharding,
    UNSPECIFIED,
    PartitionSpec,
    UnspecifiedValue,
    set_mesh,
)
from ...api.sharding import (SingleDeviceSharding, get_abstract_mesh,  # noqa: F401
                             make_single_device_sharding, use_abstract_mesh)
from ...xla.sharding import GSPMDSharding  # noqa: E402,F401 (XLA's HloSharding over devices)
