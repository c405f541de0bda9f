"""What every jnp function does first: check its inputs are arrays, promote their dtypes
(JAX's lattice, weak types included) and ranks, then call lax.

    >>> promote_args("add", jnp.ones(3, jnp.float16), 2.0)   # -> (f16[3], f16[] weak)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.trace import Tracer
from ..lax import conversion
from ..xla.array import Array, device_put

_ARRAY_TYPES = (Array, Tracer, np.ndarray, np.generic)
_SCALAR_TYPES = (bool, int, float, complex)


def is_arraylike(x) -> bool:
    return isinstance(x, _ARRAY_TYPES) or type(x) in _SCALAR_TYPES or hasattr(x, "__jax_array__")


def check_arraylike(fun_name: str, *args) -> None:
    """A TypeError naming the function and argument position if one is not an array."""
    for i, arg in enumerate(args):
        if not is_arraylike(arg):
            hint = " Use jnp.asarray/jnp.array to turn a list or tuple into an array." \
                if isinstance(arg, (list, tuple)) else ""
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(arg).__name__} at position {i}.{hint}")


def aval_of(x) -> ShapedArray:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if type(x) in _SCALAR_TYPES:
        return ShapedArray((), dtypes.python_scalar_dtype(x), type(x) is not bool)
    if hasattr(x, "__jax_array__"):
        return aval_of(x.__jax_array__())
    x = np.asarray(x)
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))


def _convert(x, aval: ShapedArray, dtype, weak_type: bool):
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return x
    return conversion._convert_element_type(x, dtype, weak_type)


def promote_dtypes(*args) -> list:
    """Convert all args to their common dtype (a weak type if all inputs were weak)."""
    if len(args) < 2:
        return list(args)
    avals = [aval_of(x) for x in args]
    dtype, weak = dtypes.result_type(*avals)
    return [_convert(x, a, dtype, weak) for x, a in zip(args, avals)]


def promote_dtypes_inexact(*args) -> list:
    """Like promote_dtypes, then to a float/complex type (ints become the default float)."""
    avals = [aval_of(x) for x in args]
    dtype, weak = dtypes.result_type(*avals)
    dtype = dtypes.to_inexact_dtype(dtype)
    return [_convert(x, a, dtype, weak) for x, a in zip(args, avals)]


def promote_dtypes_numeric(*args) -> list:
    """Like promote_dtypes, with bool promoted to the default int."""
    avals = [aval_of(x) for x in args]
    dtype, weak = dtypes.result_type(*avals)
    if dtype == dtypes.bool_:
        dtype = dtypes.default_int_dtype()
    return [_convert(x, a, dtype, weak) for x, a in zip(args, avals)]


def promote_dtypes_complex(*args) -> list:
    avals = [aval_of(x) for x in args]
    dtype, weak = dtypes.result_type(*avals)
    if not dtypes.is_complex(dtype):
        dtype = dtypes.complex128 if dtype == dtypes.float64 else dtypes.complex64
    return [_convert(x, a, dtype, weak) for x, a in zip(args, avals)]


def promote_shapes(fun_name: str, *args) -> list:
    """Give lower-rank args leading size-1 dims (lax broadcasts those and rank-0 operands)."""
    if len(args) < 2:
        return list(args)
    avals = [aval_of(x) for x in args]
    rank = max(len(a.shape) for a in avals)
    out = []
    for x, a in zip(args, avals):
        if a.shape and len(a.shape) < rank:
            from ..lax import shapes
            pad = rank - len(a.shape)
            x = shapes.broadcast_in_dim(x, (1,) * pad + a.shape, tuple(range(pad, rank)))
        out.append(x)
    return out


def promote_args(fun_name: str, *args) -> list:
    """check_arraylike + promote_dtypes + promote_shapes, as jnp's binary functions do."""
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def ensure_array(x):
    """An Array or tracer for `x` (NumPy data and Python scalars are put on the device)."""
    if isinstance(x, (Array, Tracer)):
        return x
    if hasattr(x, "__jax_array__"):
        return ensure_array(x.__jax_array__())
    return device_put(x)


def canonicalize_axis(axis: int, ndim: int) -> int:
    """`axis` in range(ndim) (negative counts from the end), or a clear error."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis
