"""jxkernel._src.xla_bridge, as jax._src.xla_bridge for what libraries reach for in it: the
backends started so far, and the functions that start and name them.

`_backends` is the very dict jxkernel's client fills as backends start (platform -> Backend),
so a library can tell whether any computation has run yet (Chex's `set_n_cpu_devices` refuses
to change the CPU device count once the CPU backend is up):

    >>> _ = devices()
    >>> "cpu" in _backends
    True
"""
from ..xla.client import (_backends, backends, default_backend, device_count,  # noqa: F401
                          devices, get_backend, local_device_count, local_devices,
                          process_count, process_index)
