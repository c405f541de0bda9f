"""Moving values between the host and one device: `put_on_device` (host data, or an Array to
another device) and `device_get`. `device_put`, which also lays values out over a mesh, is
xla/put.py's: it sends one-device puts here and mesh layouts to xla/sharded.py.

    >>> put_on_device(1.0)
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core.avals import MemorySpace, get_aval, is_sharding
from ..core.dtypes import float0
from ..core.earray import EArray
from ..core.mesh import PartitionSpec
from ..core.physical import is_extended, wrap_physical
from . import client as _client
from .array import Array, array_to_device, host_to_device, is_plain
from .client import xc
from .host_values import _host_value
from .numpy_device import NumpyDevice
from .sharding import SingleDeviceSharding


def put_on_device(x, device=None, *, copy=False) -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device` (a Device, a
    SingleDeviceSharding, or None: the default device, uncommitted).

    >>> put_on_device(1.0)
    Array(1., dtype=float32, weak_type=True)
    >>> put_on_device(np.arange(3), jax.devices()[1]).device      # needs 2 devices
    CpuDevice(id=1)
    """
    data = typed_data(x)
    if data is not None:
        moved = put_on_device(data, device, copy=copy)
        # (an EArray stays one: it may carry a library's array to a program, which its
        # dtype's handler would make that class again)
        return x._with_base(moved) if type(x) is EArray else wrap_physical(x.aval, moved)
    if device is not None and not isinstance(device, _DEVICE_TYPES):
        device = _device_of_sharding(device)
    if isinstance(x, Array):
        return array_to_device(x, device, copy)
    value, aval = _host_value(x)
    if device is None:                  # uncommitted: free to move where it is used (JAX's)
        return host_to_device(value, aval, _client.default_device())
    return host_to_device(value, aval, device, committed=True)


def typed_data(x):
    """The data of `x` where it is a value of an extended dtype (a typed PRNG key:
    random/keys.py, core/earray.py), else None: its data is what moves, and the moved data
    is wrapped back as its type (`wrap_physical(x.aval, moved)`).

        >>> typed_data(jax.random.key(0)).dtype, typed_data(jnp.ones(2))
        (dtype('uint32'), None)
    """
    if type(x) is not Array and is_extended(getattr(x, "aval", None)) and hasattr(x, "_base"):
        return x._base
    return None


_DEVICE_TYPES = (NumpyDevice,) if xc is None else (NumpyDevice, xc.Device)


def arguments_on(device, values, kept=None) -> list:
    """`values`, a program's arguments, each on `device` (moved where it is not there
    already); those the program does not take (not in `kept`, when given) stay as they are:
    it drops them, as JAX's jit does the arguments its function never reads.

    >>> arguments_on(jax.devices()[0], [1.0, np.ones(2)], kept=(1,))[0]
    1.0
    """
    return [x if is_plain(x) and x.device == device or kept is not None and i not in kept
            else put_on_device(float0_as_bools(x), device) for i, x in enumerate(values)]


def float0_as_bools(x):
    """`x`, or for host data of dtype float0 (an integer's tangent, holding nothing) the false
    bools a program takes in its place, as JAX's `_shard_np_array` passes it.

    >>> float0_as_bools(np.zeros(2, jax.dtypes.float0))
    array([False, False])
    """
    if isinstance(x, np.ndarray) and x.dtype == float0:
        return np.zeros(x.shape, np.bool_)
    return x


def check_put_target(target) -> None:
    """JAX's refusal of a device_put target that is none of None, a Device, a Sharding, a
    PartitionSpec, a Format or a memory space (`jax.device_put(x, 'gpu')`), made where JAX's
    device_put makes it, before any move: the learner's traceback then shows device_put's
    frame and this one, as JAX's shows its device_put and _check_sharding."""
    if target is None or isinstance(target, (*_DEVICE_TYPES, PartitionSpec, MemorySpace)) or \
            is_sharding(target) or type(target).__name__ == "Format":     # (put.py's test)
        return
    raise _invalid_target(target)


def _invalid_target(target) -> ValueError:
    return ValueError(f"`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
                      f"`jax.Device`, `Format`, `jax.memory.Space` or a pytree of these "
                      f"values. Received invalid value: {target}")


def _device_of_sharding(sharding):
    """The device a SingleDeviceSharding names (JAX's device_put takes shardings too)."""
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from .sharding import SingleDeviceSharding
    if not is_sharding(sharding):        # a string, a number: JAX's words
        raise _invalid_target(sharding)
    if not isinstance(sharding, SingleDeviceSharding):
        raise TypeError(f"device_put's device must be a Device (one of jxkernel.devices()) or a "
                        f"SingleDeviceSharding; got {sharding!r} of type "
                        f"{type(sharding).__name__}")
    if sharding.memory_kind != sharding._device.default_memory().kind:
        # (xla/put.py, the one door, moves a value into another memory after placing it
        # with the default memory's sharding: a caller here names a device's memory only)
        raise ValueError(f"placing a value in memory kind {sharding.memory_kind!r} here: "
                         f"this path places in device memory only; use "
                         f"jax.device_put(x, {sharding!r})")
    return sharding._device


def device_get(tree):
    """Arrays in `tree` (nested lists, tuples, dicts) as NumPy arrays; other leaves unchanged.

    >>> device_get({"a": put_on_device(1.0)})
    {'a': array(1., dtype=float32)}
    """
    if isinstance(tree, Array):
        return tree._value
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(device_get(t) for t in tree)
    if isinstance(tree, tuple):                                  # a namedtuple
        return type(tree)(*(device_get(t) for t in tree))
    if isinstance(tree, dict):
        return type(tree)((k, device_get(v)) for k, v in tree.items())
    return tree


# type -> handler(xs, shardings, layouts, copy_semantics) -> their data, an Array each: how an
# argument of a library's own array class (one core.pytype_aval_mappings types as an extended
# dtype) reaches a program (JAX's pxla.shard_arg_handlers)
shard_arg_handlers: dict = {}


def foreign_argument(x):
    """`x` as a program takes it: an argument of a class in shard_arg_handlers as an EArray of
    its type over the data its handler puts on the default device; any other as it is.

        >>> foreign_argument(1.0)
        1.0
    """
    handler = shard_arg_handlers.get(type(x))
    if handler is None:
        return x
    data, = handler([x], [SingleDeviceSharding(_client.default_device())], [None], [None])
    return EArray(get_aval(x), data)
