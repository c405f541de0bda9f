"""jxkernel._src.lax.lax, as jax._src.lax.lax: the module JAX's primitives guide imports its
`lax.add`, `lax.mul` and `lax.full_like` from. It is jxkernel.lax's operations and
primitives themselves (the same function objects), not copies.

    >>> from jxkernel._src.lax import lax
    >>> lax.add(1.0, lax.mul(2.0, 3.0))
    Array(7., dtype=float32, weak_type=True)
"""
from ....lax import *  # noqa: F401,F403
from ....lax import __all__  # noqa: F401

import functools  # noqa: E402
import itertools  # noqa: E402
import operator  # noqa: E402
import warnings  # noqa: E402

import numpy as _np  # noqa: E402

from ....core import dtypes as _dtypes  # noqa: E402
from ....core.basearray import Array as _Array  # noqa: E402
from ....core.interpreter_primitives import convert_element_type_p as _convert_p  # noqa: E402
from ....lax.sharding import constrained_as_converted  # noqa: E402
from ....core.trace import Tracer as _Tracer  # noqa: E402
from ....numpy.creation import _check_committed  # noqa: E402
from ....xla.array import ArrayImpl as _ArrayImpl  # noqa: E402
from ....xla.put import device_put as _device_put  # noqa: E402


def _convert_element_type(operand, new_dtype=None, weak_type=False, sharding=None,
                          warn_on_complex_to_real_cast=True):
    """JAX's private conversion (jnp's promotion's): `operand` as `new_dtype` (default: its
    own), weakly typed if `weak_type`, on `sharding` if given; JAX's tests call it.

    >>> _convert_element_type(jnp.arange(2), _np.dtype(float), weak_type=True)
    Array([0., 1.], dtype=float32, weak_type=True)
    """
    dtype = _dtypes.dtype(operand) if new_dtype is None else new_dtype
    if warn_on_complex_to_real_cast and _dtypes.dtype(operand).kind == "c" and \
            _np.dtype(dtype).kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      _np.exceptions.ComplexWarning, stacklevel=2)
    if type(operand) is _ArrayImpl and _dtypes.dtype(operand) == _np.dtype(dtype) and \
            operand.weak_type == bool(weak_type) and \
            (sharding is None or operand.sharding == sharding):
        return operand          # (an Array already of that type and placement: JAX's no-op)
    one_device = sharding is not None and not isinstance(operand, _Tracer) and \
        not hasattr(sharding, "spec") and len(getattr(sharding, "device_set", ())) == 1
    if one_device and type(operand) is _ArrayImpl:     # committed elsewhere: JAX's error
        _check_committed(operand, sharding._device_assignment[0])
    out = _convert_p.bind(operand, new_dtype=_dtypes.canonicalize_dtype(dtype),
                          weak_type=bool(weak_type), sharding=None if one_device else sharding)
    if one_device:              # put there, committed (JAX's constraint to it, run eagerly)
        return _device_put(out, sharding)
    return constrained_as_converted(out, sharding)


def asarray(x):
    """`x` as an Array: an Array (a tracer too) as it is, NumPy data and bools at their
    dtypes, Python numbers weakly typed (JAX's private lightweight conversion). A scalar
    stages nothing (it becomes a literal); a NumPy array under a trace is staged through a
    conversion, where JAX's stage_p makes it a constant with no equation.

    >>> asarray(1.0)
    Array(1., dtype=float32, weak_type=True)
    """
    if isinstance(x, _Array):
        return x
    if isinstance(x, (bool, _np.ndarray, _np.generic)):
        return _convert_element_type(x, weak_type=False)
    if isinstance(x, (int, float, complex)):
        return _convert_element_type(x, weak_type=True)
    raise TypeError(f"asarray: expected ArrayLike, got {x} of type {type(x)}.")


def _const(example, val):
    """`val` as a constant of `example`'s type: a Python scalar of its kind where `example`
    is a weakly typed scalar (and the kind's default dtype is its dtype), else a NumPy value
    of its dtype.

    >>> _const(2.5, 1), _const(_np.float16(2.5), 1)
    (1.0, array(1., dtype=float16))
    """
    dtype = _dtypes.dtype(example)
    weak_scalar = type(example) in (bool, int, float, complex) or (
        _dtypes.is_weakly_typed(example) and _np.ndim(example) == 0)
    if weak_scalar:
        val = _python_scalar_type(dtype)(val)
        return val if _dtypes.dtype(val) == dtype else _np.array(val, dtype)
    return _np.array(val, dtype)


def _python_scalar_type(dtype) -> type:
    kind = _np.dtype(dtype).kind
    return {"b": bool, "i": int, "u": int, "c": complex}.get(kind, float)


def _delta(dtype, shape, axes):
    """The Kronecker delta of `shape` over `axes`: 1 where the indices along all of `axes`
    are equal, 0 elsewhere (broadcast along the other axes), of `dtype`.

    >>> _delta(_np.int32, (2, 3), (0, 1))
    Array([[1, 0, 0],
           [0, 1, 0]], dtype=int32)
    """
    axes = tuple(int(a) for a in axes)      # (lax.map is `map` here)
    dtype = _dtypes.canonicalize_dtype(_np.dtype(dtype))
    base_shape = tuple(shape[a] for a in axes)
    iotas = [broadcasted_iota(_np.uint32, base_shape, i) for i in range(len(base_shape))]
    same = functools.reduce(operator.and_, [eq(a, b) for a, b in zip(iotas, iotas[1:])])
    return broadcast_in_dim(convert_element_type(same, dtype), tuple(shape), axes)


def remaining(original, *removed_lists) -> list:
    """The items of `original` in none of `removed_lists`, in their order (JAX's private
    helper, which its tests use to name the free dimensions of a dot).

    >>> remaining(range(4), [0], (2,))
    [1, 3]
    """
    removed = set(itertools.chain(*removed_lists))
    return [i for i in original if i not in removed]
