"""lax.full and full_like: arrays made from a scalar, as JAX's lax makes them (a
converted scalar broadcast with broadcast_in_dim).

    >>> lax.full((2, 3), 1.5)
    Array([[1.5, 1.5, 1.5],
           [1.5, 1.5, 1.5]], dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes, vma
from .conversion import _convert_element_type
from .shapes import broadcast, canonicalize_shape


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of `shape` filled with the scalar `fill_value` (cast to `dtype` if given).

    >>> lax.full((2,), 7, jnp.int8)
    Array([7, 7], dtype=int8)
    """
    shape = canonicalize_shape(shape)
    if np.shape(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if dtype is None:
        weak_type = dtypes.is_weakly_typed(fill_value)
        dtype = dtypes.dtype(fill_value)
    else:
        weak_type = False
        dtype = dtypes.canonicalize_dtype(dtypes.check_supported(dtype, "full dtype"))
        if type(fill_value) is int and dtypes.is_int(dtype):
            # a Python int wraps to the requested integer width, as in JAX
            fill_value = np.asarray(fill_value).astype(dtype)
    return broadcast(_as_scalar(fill_value, dtype, weak_type), shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like `x` (its shape and dtype unless given) filled with `fill_value`.

    >>> lax.full_like(jnp.zeros(3, jnp.int8), 2)
    Array([2, 2, 2], dtype=int8)
    """
    fill_shape = np.shape(x) if shape is None else canonicalize_shape(shape)
    weak_type = dtype is None and dtypes.is_weakly_typed(x)
    dtype = dtypes.dtype(x) if dtype is None else \
        dtypes.canonicalize_dtype(dtypes.check_supported(dtype, "full_like dtype"))
    if type(fill_value) is int and dtypes.is_int(dtype):
        fill_value = np.asarray(fill_value).astype(dtype)
    return vma.vary_like(broadcast(_as_scalar(fill_value, dtype, weak_type), fill_shape), x)



def _as_scalar(value, dtype, weak_type):
    aval = getattr(value, "aval", None)
    if aval is not None and aval.dtype == dtype and aval.weak_type == weak_type:
        return value                        # already right: no conversion in the jaxpr
    return _convert_element_type(value, dtype, weak_type)
