"""The Python array API standard's metadata and DLPack import, as JAX 0.10.2 has them.

    >>> x = jnp.arange(3)
    >>> x.__array_namespace__() is jnp, jnp.__array_api_version__
    (True, '2024.12')
    >>> jnp.__array_namespace_info__().default_dtypes()["integral"]
    dtype('int32')
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.config import config
from ..core import dtypes as _core
from ..xla import client as _client
from .dtypes import _KINDS

__all__ = ["__array_api_version__", "__array_namespace_info__", "from_dlpack"]

__array_api_version__ = "2024.12"

# The standard's dtypes; the 64-bit ones only while x64 is on (arrays cannot hold them else).
_STANDARD_32 = frozenset(map(np.dtype, ("bool", "int8", "int16", "int32", "uint8",
                                              "uint16", "uint32", "float32", "complex64")))
_STANDARD_64 = frozenset(map(np.dtype, ("int64", "uint64", "float64", "complex128")))


def array_namespace(self, *, api_version: str | None = None):
    """`x.__array_namespace__()`: jxkernel.numpy, for the one version it implements."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[__array_api_version__]}")
    return sys.modules["jxkernel.numpy"]


class ArrayNamespaceInfo:
    """What `jnp.__array_namespace_info__()` reports: capabilities, devices and dtypes.

    >>> sorted(jnp.__array_namespace_info__().dtypes(kind="unsigned integer"))
    ['uint16', 'uint32', 'uint8']
    """
    _capabilities = {"boolean indexing": False,       # not inside transformations
                     "data-dependent shapes": False,  # not inside transformations
                     "max dimensions": 64}            # XLA's limit

    def capabilities(self) -> dict:
        return dict(self._capabilities)

    def default_device(self):
        """None: arrays are uncommitted by default, free to go where they are used."""
        return None

    def devices(self) -> list:
        """None (uncommitted) and then every device of every backend started."""
        return [None] + [d for backend in _client.backends().values() for d in backend.devices]

    def default_dtypes(self, *, device=None) -> dict:
        del device                                    # the same on every device
        return {"real floating": _core.default_float_dtype(),
                "complex floating": _core.default_complex_dtype(),
                "integral": _core.default_int_dtype(), "indexing": _core.default_int_dtype()}

    def dtypes(self, *, device=None, kind: str | tuple | None = None) -> dict:
        """The standard's dtypes of `kind` (a name, a tuple of names, or None: numeric and
        bool), as {name: dtype}."""
        del device
        kinds = ("numeric", "bool") if kind is None else kind if isinstance(kind, tuple) \
            else (kind,)
        allowed = _STANDARD_32 | (_STANDARD_64 if config.jax_enable_x64 else frozenset())
        return {d.name: d for k in kinds for d in _KINDS[k] if d in allowed}


def __array_namespace_info__() -> ArrayNamespaceInfo:
    return ArrayNamespaceInfo()


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array of `x`'s data through DLPack (`x` has `__dlpack__`, e.g. a NumPy array),
    sharing memory on CPU unless `copy=True` or `device` asks for a transfer.

    >>> jnp.from_dlpack(np.arange(3, dtype=np.int32))
    Array([0, 1, 2], dtype=int32)
    """
    from ..xla import dlpack  # on first use: `import jxkernel` stays as fast as it was
    return dlpack.from_dlpack(x, device=device, copy=copy)
