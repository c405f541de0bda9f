"""jxkernel._src.dtypes, as jax._src.dtypes: the names libraries take from JAX's private dtypes
module (`jax.dtypes`'s, and the base class of extended dtypes).

    >>> supports_inf(jnp.float32), supports_inf(jnp.int32), supports_inf(jnp.float8_e4m3fn)
    (True, False, False)
"""
import numpy as np

from ...core.dtypes import ExtendedDType, extended, prng_key  # noqa: F401
from ...core.dtypes import (TypePromotionError, dtype, is_python_scalar,  # noqa: F401
                          is_weakly_typed, promote_types, to_complex_dtype, to_inexact_dtype)
from ..dtypes import (canonicalize_dtype, finfo, float0, iinfo, issubdtype,  # noqa: F401
                      result_type, scalar_type_of)
from .. import dtypes as _public

# a dtype: NumPy's, or an extended dtype (typed keys')
DType = np.dtype | ExtendedDType


def __getattr__(name):
    """bfloat16 (ml_dtypes' scalar type, as JAX's) comes from jxkernel.dtypes, which says what
    to install where ml_dtypes is absent."""
    if name == "bfloat16":
        return _public.bfloat16
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def supports_inf(dtype) -> bool:
    """Whether `dtype` has infinities (floats and complex do, but not the float8 formats
    without them, such as float8_e4m3fn)."""
    if not issubdtype(dtype, np.inexact):
        return False
    return bool(np.isinf(np.array(np.inf, dtype)))      # NaN in the formats without infinity
