"""jxkernel._src.sharding, as jax._src.sharding: `Sharding` (the abstract type of shardings),
`IndivisibleError` (an array dimension a sharding cannot split evenly) and
`common_devices_indices_map`, the kept answers of `devices_indices_map` (core/mesh.py).

    >>> isinstance(jax.device_put(1.0).sharding, Sharding)
    True
    >>> common_devices_indices_map.cache_info().maxsize
    4096
"""
from ...api.sharding import Sharding  # noqa: F401
from ...core.mesh import IndivisibleError, common_devices_indices_map  # noqa: F401
