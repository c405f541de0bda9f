"""jax.dtypes: dtype canonicalization and promotion as jxkernel applies them.

    >>> dtypes.canonicalize_dtype(np.float64)      # without jax_enable_x64
    dtype('float32')
    >>> dtypes.result_type(1.0, np.int8, return_weak_type_flag=True)
    (dtype('float32'), True)
"""
import numpy as np

from ..core import dtypes as _core
from ..core.dtypes import TypePromotionError, extended, prng_key  # noqa: F401
from ..transforms.ad_util import float0
from ..numpy.dtypes import finfo, iinfo, issubdtype, itemsize_bits, result_type

__all__ = ["bfloat16", "canonicalize_dtype", "extended", "finfo", "float0", "iinfo",
           "issubdtype", "itemsize_bits", "prng_key", "result_type", "scalar_type_of",
           "TypePromotionError"]
# JAX's jax.dtypes.bfloat16 is ml_dtypes' NumPy scalar type (jnp.bfloat16 makes Arrays);
# without ml_dtypes there is none, and __getattr__ says what to install
if _core.BFLOAT16_DTYPES:
    bfloat16 = _core.bfloat16.type
else:
    __all__.remove("bfloat16")


def __getattr__(name):
    raise _core.missing_narrow_attribute(__name__, name)


def canonicalize_dtype(dtype, allow_extended_dtype: bool = False) -> np.dtype:
    """`dtype` as arrays of the current mode hold it (64-bit types shrink without x64)."""
    return _core.canonicalize_dtype(np.dtype(dtype))


def scalar_type_of(x) -> type:
    """The Python scalar type (bool, int, float or complex) matching `x`'s dtype."""
    dtype = _core.dtype(x, canonicalize=False)
    if dtype == np.bool_:
        return bool
    if _core.issubdtype(dtype, np.integer):
        return int
    if _core.issubdtype(dtype, np.complexfloating):
        return complex
    return float


