"""Arrays of NumPy 2's StringDType (`np.dtypes.StringDType()`, JAX's `dtypes.string_dtype`), as
JAX 0.10.2 has them: put on CPU devices (one, or split over a mesh of them), read back with
`device_get` / `np.asarray`, passed through a `vmap` that computes nothing on them; no
computation takes them (XLA has no string type): jit and grad refuse them as "not a valid JAX
type", and an operation's type promotion refuses the dtype.

    >>> import numpy as np
    >>> a = np.array(["abcd", "efgh"], dtype=np.dtypes.StringDType())
    >>> x = jax.device_put(a, jax.devices("cpu")[0])
    >>> x
    Array(['abcd', 'efgh'], dtype=StringDType128)
    >>> jax.device_get(x).dtype
    StringDType()

jaxlib keeps them (an IFRT string array, on CPU alone); its buffer protocol has none (the host
value is jaxlib's own copy). Here: JAX's checks (`checked`, of a put; `check_made`, of
jnp.array/asarray); xla/put.py places them.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.mesh import NamedSharding, PartitionSpec
from .client import platform_of


def _devices_of(device) -> list | None:
    """The devices a device_put target names (None where it names none)."""
    if device is None or isinstance(device, PartitionSpec):
        return None
    if isinstance(device, NamedSharding):
        return list(device.mesh.devices.flat)
    found = getattr(device, "_device_assignment", None) or getattr(device, "device_set", None)
    if found is not None:
        return list(found)
    return [device]


def checked(x, device) -> tuple:
    """(host value, aval, the first device) of `x`, NumPy strings or a string Array, to be put
    on `device` (a CPU device, or a sharding over CPU devices: xla/put.py places it, committed
    there); JAX's TypeError for any other device or none."""
    devices = _devices_of(device)
    if not devices or any(platform_of(d) not in ("cpu", "numpy") for d in devices):
        raise TypeError("String arrays can only be sharded to CPU devices. Received"
                        f" unsupported device or sharding: {device}")
    value = np.asarray(x._value if hasattr(x, "_value") else x)
    return value, ShapedArray(value.shape, value.dtype), devices[0]


def check_made(object, dtype=None, ndmin: int = 0) -> None:
    """jnp.array / jnp.asarray of strings (JAX's `_make_string_array`, which then puts the
    NumPy strings as they are): NumPy strings alone, of no other dtype asked for."""
    if not isinstance(object, np.ndarray):
        raise TypeError("Currently, string arrays can only be made from NumPy"
                        f" arrays. Got:  {type(object)}.")
    if dtype is not None and dtypes.is_string(object.dtype) != dtypes.is_string(np.dtype(dtype)):
        raise TypeError(f"Cannot make an array with dtype {dtype} from an object with dtype"
                        f" {object.dtype}.")
    if ndmin > object.ndim:
        raise TypeError(f"ndmin {ndmin} cannot be greater than object's ndims"
                        f" {object.ndim} for string arrays.")
