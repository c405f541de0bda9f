"""jxkernel.numpy: NumPy's API on jxkernel arrays, with JAX's semantics (type promotion with
weak types, float32 by default, immutable arrays with `x.at[i].set(v)`).

    >>> import jxkernel.numpy as jnp
    >>> jnp.arange(3) * 2.5          # (a Python float stays weakly typed, as in JAX)
    Array([0. , 2.5, 5. ], dtype=float32, weak_type=True)

Each module below defines `__all__`; this file only gathers them. What few programs use
loads on first use, as attributes (`_LAZY`): `import jxkernel` stays small.
"""
from ..core import dtypes as _core
from ..core.lazy_names import lazy_names as _lazy_names
from .dtypes import *        # noqa: F401,F403  dtype objects, finfo, result_type, ...
from .scalar_types import *  # noqa: F401,F403  bool_, int8, float32, bfloat16, ...
from .creation import *      # noqa: F401,F403  array, zeros, arange, eye, meshgrid, ...
from .ranges import *        # noqa: F401,F403  linspace, logspace, geomspace
from .ufuncs import *        # noqa: F401,F403  elementwise functions, clip, ...
# the binary ufuncs (jnp.add, ...) and negative are jnp.ufunc objects, as in JAX: `_LAZY` below
del add, multiply, subtract, minimum, maximum, bitwise_and, bitwise_or, bitwise_xor  # noqa: F821
del logical_and, logical_or, logical_xor, logaddexp, logaddexp2, negative  # noqa: F821
from .reductions import *    # noqa: F401,F403  sum, mean, var, argmax, cumsum, trace, ...
from .manipulation import *  # noqa: F401,F403  reshape, transpose, concatenate, stack, ...
from .pad import *           # noqa: F401,F403  pad
from .products import *      # noqa: F401,F403  dot, matmul, einsum, tensordot, ...
from .sorting import *       # noqa: F401,F403  sort, argsort, searchsorted, ...
from .selection import *     # noqa: F401,F403  nonzero, where, extract, compress, ...
from .index_tricks import *  # noqa: F401,F403  take, repeat, diagonal, ix_, mgrid, r_, s_, ...
from . import array_methods as _array_methods  # installs operators and methods on Array/Tracer
from ..core.basearray import Array as ndarray  # noqa: F401

_array_methods.install()
bool = bool_  # noqa: A001,E402  jnp.bool, NumPy 2's name for bool_ (JAX has both)
from .array_api import *  # noqa: F401,F403,E402  array API metadata, from_dlpack

_LAZY_MODULES = {   # each tuple is its module's __all__ (tests/api/test_api_modules.py checks)
    "polynomial": ("poly", "vander", "polyval", "polyadd", "polysub", "polymul", "polydiv",
                   "polyder", "polyint", "polyfit", "roots"),
    "convolution": ("convolve", "correlate"),
    "setops": ("unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
               "isin", "intersect1d", "union1d", "setdiff1d", "setxor1d"),
    "statistics": ("bincount", "digitize", "histogram", "histogram_bin_edges",
                   "histogram2d", "histogramdd", "cov", "corrcoef"),
    "calculus": ("diff", "ediff1d", "gradient", "trapezoid", "interp", "unwrap"),
    "windows": ("bartlett", "blackman", "hamming", "hanning", "kaiser"),
    "functional": ("vectorize", "piecewise", "select", "apply_along_axis",
                   "apply_over_axes", "fromfunction"),
    "ufunc_api": ("ufunc", "frompyfunc"),
    "binary_ufuncs": ("add", "multiply", "subtract", "minimum", "maximum", "bitwise_and",
                      "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
                      "logaddexp", "logaddexp2", "negative"),
    "editing": ("fromfile", "fromiter", "save", "savez", "load", "insert", "delete",
                "place", "fill_diagonal", "block", "trim_zeros", "mask_indices", "packbits",
                "unpackbits", "frombuffer", "fromstring", "array_str", "array_repr",
                "iterable"),
}
_LAZY = {name: ("." + module, name) for module, names in _LAZY_MODULES.items() for name in names}
_LAZY.update(linalg=(".linalg", None), fft=(".fft", None))   # jnp.linalg, jnp.fft: the modules
_lazy_getattr, __dir__ = _lazy_names(__name__, globals(), _LAZY)


def __getattr__(name):
    if name in _core.NARROW_DTYPE_NAMES:     # only asked for here where ml_dtypes lacks it
        raise _core.missing_narrow_attribute(__name__, name)
    return _lazy_getattr(name)


__all__ = sorted(n for n in set(globals()) | set(_LAZY) if not n.startswith("_"))
