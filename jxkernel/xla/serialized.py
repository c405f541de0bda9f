"""A compiled program as bytes and back (jax.experimental.serialize_executable's jaxlib part):
XLA's serialized executable, loaded again onto devices of the same kind, and a pickle of the
rest in which each device is its id (as JAX's _JaxPjrtPickler), found again among the devices
it is loaded onto.

    >>> exe = jax.jit(lambda x: x * 2).lower(1.0).compile()._entry.exe
    >>> payload = executable_bytes(exe)
    >>> type(load_executable(payload, [exe.device])).__name__
    'LoadedExecutable'
    >>> loads(dumps({"on": exe.device}), jax.devices())["on"] == exe.device
    True
"""
from __future__ import annotations

import io
import pickle

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


class _DevicePickler(pickle.Pickler):
    """Pickles a device as its id (a jaxlib Device is no picklable value)."""

    def persistent_id(self, obj):
        return ("device", obj.id) if isinstance(obj, xc.Device) else None


class _DeviceUnpickler(pickle.Unpickler):
    """Reads a device id back as the device of that id among `devices` (one not among them:
    JAX's KeyError, naming the id)."""

    def __init__(self, file, devices):
        super().__init__(file)
        self.by_id = {d.id: d for d in devices}

    def persistent_load(self, pid):
        if pid[0] != "device":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.by_id[pid[1]]


def dumps(value) -> bytes:
    """`value` pickled, each device in it as its id."""
    with io.BytesIO() as file:
        _DevicePickler(file).dump(value)
        return file.getvalue()


def loads(payload: bytes, devices):
    """What `dumps` pickled, each device id read back as that device among `devices`."""
    return _DeviceUnpickler(io.BytesIO(payload), devices).load()
