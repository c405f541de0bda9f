"""`device_put`, the one door for placing a value: on a device (xla/transfers.py) or laid out
over a mesh (xla/sharded.py). It stands above both, so that neither imports the other.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
"""
from __future__ import annotations


from ..core import dtypes
from ..core.avals import Token, get_aval
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.physical import wrap_physical
from . import string_arrays
from .array import Array, host_to_device
from .layout import check_put_format, sharding_of_format
from .transfers import put_on_device, typed_data


def device_put(x, device=None, *, copy=False) -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`: a Device, a
    sharding (one device's, or a NamedSharding or P over a mesh), a Format, or None.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
    >>> device_put(np.arange(3), jax.devices()[1]).device      # needs 2 devices
    CpuDevice(id=1)
    """
    if type(x) is Token:                # a new Token around a copy of its carrier, as JAX's
        return Token(device_put(x._buf, device, copy=True))
    data = typed_data(x)
    if data is not None:                # a typed key: its data moves (a Format reads its rank)
        return wrap_physical(x.aval, device_put(data, device, copy=copy))
    if type(device).__name__ == "Format":            # jax.experimental.layout.Format
        aval = get_aval(x)
        check_put_format(device, aval)
        device = sharding_of_format(device, len(aval.shape))
    if hasattr(device, "_as_mesh_sharding"):        # a GSPMDSharding: its tiling as a mesh's
        device = device._as_mesh_sharding()
    strings = type(getattr(x, "dtype", None)) is dtypes.StringDType
    if strings:                         # NumPy's StringDType: on CPU devices alone, committed
        value, aval, first = string_arrays.checked(x, device)
        if not isinstance(device, NamedSharding):
            return host_to_device(value, aval, first, True)
    if isinstance(device, (NamedSharding, PartitionSpec)):
        # split over a mesh: loads with the first mesh, which `import jxkernel` does not need
        from .sharded import device_put as put_on_mesh, put as put_blocks
        if strings:                     # (each device's block, as numbers' are)
            device.check_shape(aval.shape)
            return put_blocks(value, aval, device)
        return put_on_mesh(x, device)
    return put_on_device(x, device, copy=copy)
