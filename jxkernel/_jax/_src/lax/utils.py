"""jxkernel._src.lax.utils, as jax._src.lax.utils: the integer dtype that can index a dimension
or a shape, as JAX's rules pick it (int32 unless a size passes int32's range; a symbolic size
gets the default int of the x64 mode).

    >>> int_dtype_for_dim(10, signed=True), int_dtype_for_shape([2**32, 3], signed=False)
    (dtype('int32'), dtype('uint64'))
"""
import numpy as np

from ....core.dtypes import default_int_dtype, default_uint_dtype, iinfo
from ....core.symbolic import is_symbolic

# (largest size the 32-bit type indexes, that type, the 64-bit one, the symbolic default)
_SIGNED = (iinfo(np.int32).max, np.dtype(np.int32), np.dtype(np.int64), default_int_dtype)
_UNSIGNED = (iinfo(np.uint32).max, np.dtype(np.uint32), np.dtype(np.uint64),
             default_uint_dtype)


def int_dtype_for_dim(d, *, signed: bool) -> np.dtype:
    """An integer dtype that holds every index of a dimension of size `d`."""
    return int_dtype_for_shape((d,), signed=signed)


def int_dtype_for_shape(shape, *, signed: bool) -> np.dtype:
    """An integer dtype that holds every index of every dimension of `shape` (the first
    symbolic size, before any too large for 32 bits, gives the x64 mode's default)."""
    largest, small, big, symbolic = _SIGNED if signed else _UNSIGNED
    for d in shape:
        if is_symbolic(d):
            return symbolic()
        if d > largest:
            return big
    return small
