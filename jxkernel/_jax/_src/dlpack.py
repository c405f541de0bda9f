"""jxkernel._src.dlpack, as jax._src.dlpack for what JAX's tests read of it: the dtypes DLPack
carries, as scalar types (`SUPPORTED_DTYPES`, looked up by `.type`, as JAX's) and as NumPy
dtypes (`SUPPORTED_DTYPES_SET`), and `is_supported_dtype`. The exchange itself is jax.dlpack's
(jxkernel/xla/dlpack.py, dlpack_export.py).

    >>> np.dtype("float32") in SUPPORTED_DTYPES_SET
    True
    >>> is_supported_dtype("float8_e4m3fn")
    False
"""
from ...xla.dlpack import SUPPORTED_DTYPES as SUPPORTED_DTYPES_SET  # noqa: F401
from ...xla.dlpack import is_supported_dtype  # noqa: F401

# the same dtypes as their scalar types (a dtype and its type hash differently)
SUPPORTED_DTYPES = frozenset(d.type for d in SUPPORTED_DTYPES_SET)
