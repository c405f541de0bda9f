"""A compiled program as bytes and back (jax.experimental.serialize_executable's jaxlib part):
XLA's serialized executable, loaded again onto devices of the same kind.

    >>> exe = jax.jit(lambda x: x * 2).lower(1.0).compile()._entry.exe
    >>> payload = executable_bytes(exe)
    >>> type(load_executable(payload, [exe.device])).__name__
    'LoadedExecutable'
"""
from __future__ import annotations

from .client import backend_of, xc
from .disk_cache import FromDisk


def executable_bytes(exe) -> bytes:
    """XLA's serialization of an Executable's program (one read from the compilation cache:
    the bytes it was read from). A program calling back into Python holds its callbacks,
    which bytes cannot, and the NumPy backend's is no XLA program: JAX's ValueError."""
    loaded = exe.loaded
    if isinstance(loaded, FromDisk):
        return loaded.payload
    if xc is None or not isinstance(loaded, xc.LoadedExecutable):
        raise ValueError("Compilation does not support serialization")
    return loaded.client.serialize_executable(loaded)


def load_executable(payload: bytes, devices):
    """jaxlib's LoadedExecutable of `payload`, on `devices` (one client's)."""
    client = backend_of(devices[0]).client
    return client.deserialize_executable(payload, xc.DeviceList(tuple(devices)))
