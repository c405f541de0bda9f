"""jxkernel._src.xla_bridge, as jax._src.xla_bridge for what libraries reach for in it: the
backends started so far, and the functions that start and name them.

`_backends` is the very dict jxkernel's client fills as backends start (platform -> Backend),
so a library can tell whether any computation has run yet (Chex's `set_n_cpu_devices` refuses
to change the CPU device count once the CPU backend is up):

    >>> _ = devices()
    >>> "cpu" in _backends
    True
"""
from ...xla import client as _client
from ...xla.client import (_backends, default_backend, device_count, devices,  # noqa: F401
                          local_device_count, local_devices, process_count, process_index)


def backends_are_initialized() -> bool:
    """Whether a backend has started (JAX's): Flax's sharding guide asks it before setting
    `jax_num_cpu_devices`, which only counts before the CPU backend starts.

    >>> backends_are_initialized()
    True
    """
    return len(_backends) != 0


def get_backend(platform=None):
    """The started backend's PJRT client (jaxlib's `Client`), as JAX's `get_backend` returns:
    programs compile MLIR on it themselves (`compile_and_load(text, devices)`), as autodidax does.

    >>> get_backend().platform
    'cpu'
    """
    return _client.get_backend(platform).client


def backends() -> dict:
    """Each started platform's PJRT client, as JAX's `backends()`."""
    return {name: b.client for name, b in _client.backends().items()}


def canonicalize_platform(platform: str) -> str:
    """JAX's platform name for `platform`: "gpu" is the GPU backend present ("cuda"; a
    RuntimeError naming the platforms present without one); any other name is kept as it is
    (JAX lowercases nothing here: "CPU" stays "CPU").

    >>> canonicalize_platform("cpu"), canonicalize_platform("tpu")
    ('cpu', 'tpu')
    """
    return _client.jax_platform(platform) if platform == "gpu" else platform
