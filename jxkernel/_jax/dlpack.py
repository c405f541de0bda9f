"""`jax.dlpack`: arrays in and out of other libraries through the DLPack protocol.

    >>> import numpy as np
    >>> import jxkernel.dlpack
    >>> jxkernel.dlpack.from_dlpack(np.arange(2, dtype=np.int8))
    Array([0, 1], dtype=int8)

Arrays go out through their own `__dlpack__` (`np.from_dlpack(x)`, jxkernel/xla/dlpack_export.py)
and come in through jxkernel/xla/dlpack.py: the places that talk to jaxlib.
"""
from ..xla.dlpack import SUPPORTED_DTYPES, is_supported_dtype  # noqa: F401
from ..xla.dlpack import from_dlpack as _from_dlpack

__all__ = ["from_dlpack", "is_supported_dtype"]


def from_dlpack(external_array, device=None, copy=None):
    """An Array of `external_array`'s data (it has `__dlpack__` and `__dlpack_device__`),
    sharing its memory unless `copy=True` or another `device` asks for a copy."""
    return _from_dlpack(external_array, device=device, copy=copy)
