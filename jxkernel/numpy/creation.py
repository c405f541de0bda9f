"""Array creation: array/asarray (with JAX's weak types), zeros/ones/full and their *_like,
arange, eye/identity/tri, meshgrid, copy (linspace & co. are in ranges.py).

    >>> jnp.asarray(1.0)                   # a Python scalar stays weakly typed
    Array(1., dtype=float32, weak_type=True)
    >>> jnp.array([1.0, 2])                # a list does not
    Array([1., 2.], dtype=float32)

Eagerly, constant fills (zeros, ones, full, eye, tri, integer arange) are built in NumPy
and copied to the device: no XLA compile per new shape. Under a transformation they stage
the same primitives JAX stages (broadcast_in_dim, iota, ...).
"""
from __future__ import annotations

import operator
import sys

import numpy as np

from .. import lax
from ..lax.sharding import (canonicalize_sharding, check_explicit_only, constrained_as_converted,
                            constrains_conversion, laid_out, resolved)
from ..core import deprecations
from ..core import dtypes as _core
from ..core.config import config
from ..core import sharding_types as st
from ..core import trace as _trace
from ..core import vma
from ..core.avals import ShapedArray, replicated_on
from ..core.errors import ConcretizationTypeError, masked_array_error, shape_error
from ..core.mesh import (AbstractMesh, NamedSharding, PartitionSpec, eager_mesh, get_mesh,
                         on_context_mesh, resolve)
from ..core.traceback_util import filter_before_raising
from ..core.symbolic import decided, is_symbolic, max_dim
from ..core.trace import Tracer
from ..core.interpreter_primitives import typed_scalar
from ..xla import client as _client
from ..xla.array import Array, host_to_device
from ..lax.transfer import place
from ..xla.put import device_put
from ..xla.sharding import SingleDeviceSharding, Sharding
from ..xla.string_arrays import check_made as check_made_strings
from ..transforms.jit.args import device_mismatch
from . import util
from .dtypes import canonicalize_user_dtype, lattice_result_type, result_type

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
           "full_like", "empty_like", "arange", "eye", "identity", "tri", "meshgrid", "copy",
           "astype"]

_SCALARS = (bool, int, float, complex)


def _eager() -> bool:
    return type(_trace._ctx.trace) is _trace.EvalTrace


def _on_device(value: np.ndarray, weak: bool = False, device=None) -> Array:
    aval = ShapedArray(value.shape, value.dtype, weak)
    if isinstance(device, PartitionSpec):    # (jnp.eye's: set_mesh's mesh, as device_put's)
        device = resolve(device)
    if device is None and on_context_mesh():    # under set_mesh, as JAX's: over its mesh
        return device_put(host_to_device(value, aval, _client.default_device()),
                          replicated_on(eager_mesh(), value.ndim))
    if device is None:                  # uncommitted, as JAX's (xla/placement.call_placement)
        return host_to_device(value, aval, _client.default_device())
    if isinstance(device, Sharding):    # `device=` takes a sharding too, as JAX's
        return device_put(host_to_device(value, aval, _client.default_device()), device)
    return host_to_device(value, aval, device, committed=True)


def _check_device(device, out_sharding=None, *, filled: bool = False) -> None:
    """JAX 0.10.2's checks of a creation function's `device=`, in its order and words: not
    together with `out_sharding=` (util.choose_device_or_out_sharding), then a bare
    PartitionSpec refused, under set_mesh too (jax.device_put and jnp.eye take it): its fills
    (`filled`) read it as a Sharding, an AttributeError; jnp.array, asarray, astype and
    linspace check it is one. None passes. A call, not a decorator: zeros' check of a
    forgotten shape tuple comes first, as JAX's."""
    if device is None:
        return
    if out_sharding is not None:
        raise ValueError(f"Only one of `device` or `out_sharding` can be set. Got {device=} and "
                         f"{out_sharding=}")
    if isinstance(device, PartitionSpec):
        if filled:
            raise AttributeError(f"'{type(device).__name__}' object has no attribute "
                                 f"'_is_concrete'")
        raise ValueError(f"sharding={device!r} must be an instance of jax.sharding.Sharding")


def _check_python_int(x, dtype) -> None:
    if type(x) is int and np.dtype(dtype).kind in "iu":
        info = _core.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {np.dtype(dtype).name}")


def _shape(shape, name="shape", op="broadcast_in_dim") -> tuple:
    """A shape argument as a tuple of ints: a sequence (a 1-D NumPy array too) or one size;
    JAX's TypeErrors for anything else and for negative sizes (named after `op`, the lax
    operation JAX's check is in)."""
    if isinstance(shape, Array) and shape.ndim == 1:
        # a concrete jax Array of sizes is read as NumPy's, as JAX's jnp.zeros reads it (its
        # floats then refused below, JAX's words: "got [2. 3.]")
        shape = np.asarray(shape)
    if isinstance(shape, (list, tuple)) or (isinstance(shape, np.ndarray) and shape.ndim == 1):
        dims = tuple(shape)
    elif np.ndim(shape) == 0:
        dims = (shape,)
    else:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape}.")
    for d in dims:                        # a traced size: JAX's plain TypeError (a list
        if isinstance(d, Tracer) and d.to_concrete_value() is None:     # printed as a list)
            raise shape_error(shape if isinstance(shape, list) else dims, d)
    if not all(isinstance(d, Tracer) or _is_integer(d) or is_symbolic(d) for d in dims):
        # printed as given (a list as a list: JAX's "got [2.0, 3]"), one size as a tuple
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape if isinstance(shape, (np.ndarray, list)) else dims}.")
    dims = tuple(_concrete_int(d, f"The {name} argument", "") for d in dims)
    if any(not is_symbolic(d) and d < 0 for d in dims):     # (jax.export's are >= 1)
        e = TypeError(f"{op} shape must have every element be nonnegative, got {dims}.")
        # (JAX's is the primitive's shape rule, raised under eager dispatch's boundary)
        filter_before_raising(e, sys._getframe())
        raise e
    return dims


def _is_integer(d) -> bool:
    try:
        operator.index(d)
    except TypeError:
        return False
    return True


def _concrete_int(x, what, context=None) -> int:
    """`x` as a Python int (a tracer's known value; a symbolic size kept). A traced value
    raises JAX's ConcretizationTypeError with `what` on its own line ("'num' argument of
    jnp.linspace"), or with `context` given JAX's shape error ending with it (JAX's
    canonicalize_dim: jnp.eye's "argument of 'N' jnp.eye()"); a float raises Python's own
    TypeError (JAX's linspace num), or with `context` JAX's shape error."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            if context:
                raise _traced_size_error(x, context)
            raise ConcretizationTypeError(x, f"{what}\n")
        x = value
    try:
        return operator.index(x)
    except TypeError:
        if is_symbolic(x):                  # jax.export's symbolic dimension
            return x
        if context is None:
            raise
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{(x,)}.{f' {context}.' if context else ''}") from None


def _traced_size_error(x, context: str) -> TypeError:
    """JAX's shape error for a traced size `x` (`jnp.eye(n)` under jit): `context` follows
    the shape on its first line, as JAX's canonicalize_dim words it ("got
    (JitTracer(~int32[]),). argument of 'N' jnp.eye()."), then the lines on jit and the
    argument it depends on."""
    return shape_error((x,), x, f" {context}.")


def _concrete(x, context):
    """A concrete value for a static argument (Python/NumPy/Array), or JAX's error, whose
    second line is `context` as JAX words it for that argument, each function its own way
    (tests/data/concretization_context_cases.py records them).

        >>> _concrete(3, "M argument of jnp.hanning")
        3
    """
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, f"{context}\n")     # (JAX: its own line)
        return value
    return x


# ---------------------------------------------------------------- array / asarray
_STRING = _core.StringDType      # NumPy 2's StringDType's class


def array(object, dtype=None, *args, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, device=None, out_sharding=None):
    """An Array from an array, scalar, or nested lists/tuples of them (as jnp.array).

    >>> jnp.array([[1, 2], [3, 4]], dtype=jnp.float32).shape
    (2, 2)
    """
    if args:
        copy, order, ndmin = _positional_array_args(args, copy, order, ndmin)
    _check_device(device, out_sharding)
    if _is_float0(dtype) or dtype is None and isinstance(object, np.ndarray) and \
            _is_float0(object.dtype):
        return _float0_array(object, ndmin)
    if type(dtype) is _STRING or type(getattr(object, "dtype", None)) is _STRING:
        # NumPy's StringDType: put as it is, on CPU devices (XLA has no string type)
        check_made_strings(object, dtype, ndmin)
        return device_put(object, device)
    if device is not None and type(object) is Array:
        _check_committed(object, device)
    if out_sharding is not None and get_mesh() is None:
        # JAX 0.10.2 makes it on the default device, untyped, outside set_mesh (seen: a
        # NamedSharding's mesh unused by its convert_element_type there)
        out_sharding = None
    if out_sharding is not None:
        if not copy and isinstance(object, np.ndarray) and dtype in (None, object.dtype) and \
                ndmin <= object.ndim:
            # JAX's device_put of such NumPy data comes first: it keeps it uncommitted, the
            # out_sharding unused
            return device_put(object)
        return _laid_out(lambda: array(object, dtype, copy=copy, order=order, ndmin=ndmin),
                         out_sharding, "jnp.array")
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if isinstance(object, np.ma.MaskedArray) and not copy:  # a copy takes its data, as JAX's
        raise masked_array_error()
    if dtype is not None:
        dtype = canonicalize_user_dtype(dtype, "array")
    weak = dtype is None and _core.is_weakly_typed(object)
    if hasattr(object, "__jax_array__") and not isinstance(object, (Array, Tracer)):
        object = object.__jax_array__()

    if _core.extended_scalar_type(getattr(object, "dtype", None)):   # typed keys stay keys
        if dtype is not None and dtype != object.dtype:
            # the dtype's rules say whether it converts (keys do not: JAX's ValueError;
            # primal_tangent_dtype's do)
            return lax.convert_element_type(object, dtype)
        if not copy:
            return object
        return lax.copy_p.bind(object) if isinstance(object, Tracer) else object.copy()
    if isinstance(object, (Array, Tracer)):
        out = object
        if copy and dtype in (None, out.dtype):
            out = out.copy() if type(out) is Array else lax.copy_p.bind(out)
    elif isinstance(object, (list, tuple)):
        out, dtype = _from_sequence(object, dtype)
        if out is None:     # NumPy's to make, here: its error (ragged lists) raised from this
            out = np.asarray(_host(object), dtype=dtype)    # frame, as from JAX's array
    elif object is None:
        raise ValueError("None is not a valid value for jnp.array")
    else:
        if type(object) in _SCALARS:
            if dtype is None:
                _check_python_int(object, _core.python_scalar_dtype(object))
            out = np.asarray(object, dtype or _core.python_scalar_dtype(object))
        else:
            try:
                out = np.asarray(object)
            except Exception:
                raise TypeError(f"Unexpected input type for array: {type(object)}") from None
            if dtype is not None and out.dtype.kind in "US":
                # JAX's np.asarray(object, dtype): given a dtype, NumPy reads text as numbers
                # ("1.5" as 1.5, "abc" NumPy's ValueError; bfloat16 ml_dtypes' TypeError)
                out = np.asarray(object, dtype)
            _check_numeric(object, out.dtype)
        if dtype is None:     # (a typed host value, an int64 TypedInt, keeps its own, as JAX's)
            dtype = object.dtype if _core.keeps_its_dtype(object) else \
                _core.canonicalize_dtype(out.dtype)
    if _staged_host_array(object, dtype, device):
        out = util.host_array(object)    # the Array the array's other uses here have
    else:
        out = _finish(out, dtype or util.aval_of(out).dtype, weak, device)
    if ndmin > out.ndim:
        out = lax.expand_dims(out, tuple(range(ndmin - out.ndim)))
    return out


object_dtype = np.dtype(object)


def _check_committed(x, device) -> None:
    """JAX 0.10.2's ValueError for `jnp.array(x, device=d)` of an Array committed to other
    devices than `d` (its convert_element_type constrained to `d`, in a jit's words)."""
    if isinstance(device, Sharding) or not x.committed or x.devices() == {device}:
        return
    device_mismatch("convert_element_type", ["args[0]"], [x],
                    [(x.sharding._device_assignment, "ARG_SHARDING"),
                     ((device,), "sharding_constraint inside jit", " at ")])


def _check_numeric(value, dtype) -> None:
    """JAX 0.10.2's TypeError for text and other objects: NumPy makes arrays of strings,
    bytes and objects (a token, a dict), JAX does not (jnp.array(["cat", "dog"]) names the
    first leaf, 'cat'); dates and records are no JAX type either."""
    if not _core.is_numeric_kind(dtype):
        raise TypeError(f"Value '{value}' with dtype {dtype} is not a valid JAX array type. "
                        f"Only arrays of numeric types are supported by JAX.")


def _positional_array_args(args, copy, order, ndmin) -> tuple:
    """jnp.array's copy, order and ndmin given by position: taken, with JAX's deprecation
    warning; a TypeError where one is also given by keyword."""
    if len(args) > 3:
        raise TypeError(f"array() takes at most 5 positional arguments but {len(args) + 2} "
                        f"were given")
    keywords = [copy, order, ndmin]
    for i, name in enumerate(["copy", "order", "ndmin"][:len(args)]):
        if keywords[i] != [True, "K", 0][i]:
            raise TypeError(f"array() got multiple values for argument '{name}'")
    deprecations.warn("jax-array-positional-args", "Passing the copy, order, and ndmin "
                      "arguments to jnp.array positionally is deprecated. Use keyword "
                      "arguments instead.", stacklevel=3)
    return tuple([*args, *keywords[len(args):]])


def _staged_host_array(obj, dtype, device) -> bool:
    """Whether jnp.array(obj) is a NumPy array a transformation takes as its one constant for
    `obj` (util.host_array): as JAX's, jnp.array(c) and c are one constvar of a jaxpr."""
    return type(obj) is np.ndarray and obj.ndim > 0 and device is None and not _eager() \
        and dtype == _core.canonicalize_dtype(obj.dtype) and not on_context_mesh()


def _finish(out, dtype, weak, device):
    """Host data or an Array/tracer as an Array of `dtype` with the weak flag set."""
    if isinstance(out, np.ndarray):
        if out.dtype != dtype:
            out = out.astype(dtype)
        if device is not None and not _eager() and constrains_conversion(device):
            # under a trace, a sharding over Auto axes: a constant constrained to it, as JAX's
            # convert_element_type(..., sharding=) binds (the program runs over its devices)
            return constrained_as_converted(
                lax.conversion._convert_element_type(out, dtype, weak), device)
        if out.shape or _eager() or device is not None:
            return _on_device(out, weak, device)
        return lax.conversion._convert_element_type(out[()], dtype, weak)   # staged: a literal
    a = out.aval
    # (a tracer standing for a Python scalar, a jvp's of 1.0: converted, so that its value
    # is an Array, as JAX's convert_element_type of a concrete tracer makes it)
    if a.dtype != dtype or a.weak_type != weak or isinstance(out, Tracer) and \
            type(out.to_concrete_value()) in (bool, int, float, complex):
        out = lax.conversion._convert_element_type(out, dtype, weak)
    if device is not None and isinstance(out, Tracer) and constrains_conversion(device):
        return constrained_as_converted(out, device)      # (JAX's, as above)
    if device is not None:
        out = place(out, device)
    return out


def _leaves(obj, out):
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, out)
    elif obj is None:
        raise ValueError("None is not a valid value for jnp.array")
    else:
        out.append(obj.__jax_array__() if hasattr(obj, "__jax_array__") else obj)
    return out


def _from_sequence(obj, dtype) -> tuple:
    """(array, dtype) of nested lists/tuples: via NumPy unless they hold tracers (then stacked
    with lax); the dtype their promotion gives (float64 arrays stay float64 under ALLOW). The
    array is None where NumPy alone makes it from no Array: the caller's np.asarray."""
    leaves = _leaves(obj, [])
    for leaf in leaves:     # (given a dtype, NumPy reads text as numbers: JAX's np.asarray)
        if dtype is None and (isinstance(leaf, (str, bytes, np.ndarray)) or _opaque(leaf)):
            _check_numeric(leaf, np.asarray(leaf).dtype)
    arrays = any(isinstance(x, Array) for x in leaves)
    if dtype is None:
        try:
            dtype = lattice_result_type(*_dedupe(leaves))[0] if leaves else \
                _core.default_float_dtype()
        except TypeError:
            # a leaf of no dtype that NumPy reads (a memoryview, a bytearray: uint8 bytes):
            # NumPy's array of it, as JAX's array() takes it where its dtype lookup fails
            obj = _with_host_leaves(obj)
            dtype = lattice_result_type(*_dedupe(_leaves(obj, [])))[0]
        if arrays and not any(isinstance(x, Tracer) for x in leaves):
            # JAX's array() of each element checks it: an int64 made under enable_x64 warns
            # (or raises) once per element, though the result keeps the dtype (with tracers,
            # the array() of each element below checks it so)
            for _ in obj:
                canonicalize_user_dtype(dtype, "array")
    # (typed keys have no NumPy dtype: stacked with lax, as JAX's jnp.array([k1, k2]))
    if not any(isinstance(x, Tracer) for x in leaves) and \
            not _core.extended_scalar_type(dtype):
        if not arrays:
            return None, dtype
        try:
            return np.asarray(_host(obj), dtype=dtype), dtype
        except ValueError:
            # JAX stacks a sequence holding Arrays with lax.concatenate, whose TypeError
            # ("Cannot concatenate arrays with shapes ...") is what ragged Arrays meet there
            pass
    parts = [lax.expand_dims(array(x, dtype=dtype, copy=False), (0,)) for x in obj]
    return lax.concatenate(parts, 0), dtype


def _with_host_leaves(obj):
    """`obj` (nested lists/tuples, as lists) with each leaf of no dtype as NumPy's array of
    it."""
    if isinstance(obj, (list, tuple)):
        return [_with_host_leaves(o) for o in obj]
    try:
        _core.dtype(obj)
    except TypeError:
        return np.asarray(obj)
    return obj


def _opaque(leaf) -> bool:
    """A leaf NumPy makes an object array of (`object()`): JAX's dtype check names it, where
    jxkernel's dtype lookup named itself."""
    return not isinstance(leaf, (bool, int, float, complex)) and \
        not hasattr(leaf, "dtype") and not hasattr(leaf, "__array__")


def _dedupe(leaves):
    seen, out = set(), []
    for x in leaves:
        key = type(x) if type(x) in _SCALARS else (util.aval_of(x).dtype, util.aval_of(x).weak_type)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def _host(obj):
    if isinstance(obj, (list, tuple)):
        return [_host(o) for o in obj]
    if hasattr(obj, "__jax_array__") and not isinstance(obj, (Array, Tracer)):
        obj = obj.__jax_array__()               # (as _leaves took it)
    return np.asarray(obj) if isinstance(obj, Array) else obj


def _placed_as_asked(a: Array, device) -> bool:
    """`a` is already where `device` (a Sharding or a Device) would put it. Anything else (a
    bare PartitionSpec, say) is not, and goes on to array()'s checks and JAX's error."""
    if isinstance(device, Sharding):
        return a.sharding == device
    return device in a.devices() and a.sharding == SingleDeviceSharding(device)


def asarray(a, dtype=None, order=None, *, copy: bool | None = None, device=None,
            out_sharding=None):
    """`a` as an Array, without a copy where possible (as jnp.asarray).

    >>> jnp.asarray([1, 2, 3]).dtype
    dtype('int32')
    """
    if type(a) is Array and dtype is None and not copy and device is None and \
            out_sharding is None:
        return a
    if type(a) is Array and dtype is None and not copy and out_sharding is None and \
            _placed_as_asked(a, device):
        return a        # already there (committed or not): JAX's conversion is then a no-op
    if dtype is not None and type(dtype) is not _STRING:   # (strings: array's own path)
        dtype = canonicalize_user_dtype(dtype, "asarray")
    return array(a, dtype=dtype, copy=bool(copy), order=order, device=device,
                 out_sharding=out_sharding)


def copy(a, order=None):
    """A copy of `a`."""
    util.check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """`x` converted to `dtype` (None: the default float).

    >>> jnp.astype(jnp.arange(3), jnp.float16)
    Array([0., 1., 2.], dtype=float16)
    """
    x = util.ensure_arraylike("astype", x)
    _check_device(device)
    if _core.extended_scalar_type(dtype) and dtype == x.dtype:
        return x            # typed keys to their own dtype: as they are, as JAX converts them
    if _core.is_extended(dtype) or _core.is_extended(getattr(x, "dtype", None)):
        # to or from an extended dtype: lax's conversion, whose rules say whether it may
        if dtype is None:
            dtype = _core.default_float_dtype()
        return lax.convert_element_type(x, dtype)
    dtype = _core.default_float_dtype() if dtype is None else \
        canonicalize_user_dtype(dtype, "astype")
    if _core.is_complex(x.dtype):
        if _core.is_int(dtype) or _core.is_float(dtype):      # (int4, float8s too)
            deprecations.warn("jax-numpy-astype-complex-to-real",
                              "Casting from complex to real dtypes will soon raise a "
                              "ValueError. Please first use jnp.real or jnp.imag to take the "
                              "real/imaginary component of your input.", stacklevel=2)
        elif dtype == _core.bool_:
            x = lax.ne(x, typed_scalar(0, x.dtype))
    out = lax.convert_element_type(x, dtype)
    if copy and out is x:
        out = array(x, copy=True)
    return out if device is None else place(out, device)


# ---------------------------------------------------------------- fills
def _fill(shape, value, dtype, weak=False, device=None):
    """`value` broadcast to `shape`: built on the host eagerly, staged as lax.full."""
    if isinstance(dtype, _core.ExtendedDType):      # keys: their type's rules' full, as JAX's
        out = lax.full(shape, value, dtype)
        return out if device is None else device_put(out, device)
    if _eager() or device is not None:
        try:
            return _on_device(np.full(shape, value, dtype), weak, device)
        except TypeError:
            # a symbolic size outside jax.export: lax's, whose lowering says JAX's
            # UnexpectedDimVar (no argument gives its variables)
            if not any(map(is_symbolic, shape)):
                raise
    out = util.full(shape, lax.conversion._convert_element_type(value, dtype, weak))
    return out


def _laid_out(make, out_sharding, name):
    """`make()` typed and laid out as `out_sharding` (Explicit mesh axes), if one is given:
    traced, its broadcast is typed so directly (as JAX's jaxpr shows it). `name`: the
    function as JAX's errors name it."""
    if out_sharding is None:
        return make()
    if not isinstance(out_sharding, (NamedSharding, PartitionSpec)):
        canonicalize_sharding(out_sharding, name)     # JAX's TypeError (a device's sharding)
    check_explicit_only(resolved(out_sharding), name)
    if _eager():
        return laid_out(make(), out_sharding)
    sharding = resolved(out_sharding)
    with st.out_sharding(lax.shapes.broadcast_in_dim_p, sharding):
        x = make()
    # (its broadcast typed so, over the AbstractMesh: it needs no constraint, and names no
    # devices, as JAX's)
    return x if util.typed_as_asked(x, sharding) else laid_out(x, sharding)


def _check_forgot_shape_tuple(name, shape, dtype):
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally "
                        f"write `jax.numpy.{name}({shape}, {dtype})` when you meant "
                        f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple "
                        f"argument for the shape?")


def _is_float0(dtype) -> bool:
    return isinstance(dtype, np.dtype) and dtype == _core.float0


def _float0_array(object, ndmin):
    """jnp.array(object, dtype=float0): float0 zeros of its shape on the host, as JAX's (float0,
    an integer's tangent, holds nothing and has no device type); NumPy's TypeError for data
    it cannot read as float0 (a Python int)."""
    shape = np.shape(object) if hasattr(object, "shape") else \
        np.array(object, dtype=_core.float0).shape
    return np.zeros((1,) * (ndmin - len(shape)) + tuple(shape), _core.float0)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of zeros (float32 by default).

    >>> jnp.zeros((2, 3)).shape
    (2, 3)
    """
    _check_forgot_shape_tuple("zeros", shape, dtype)
    _check_device(device, out_sharding, filled=True)
    if _is_float0(dtype):
        return np.zeros(_shape(shape), _core.float0)   # as JAX's: a host array (no device type)
    dtype = canonicalize_user_dtype(float if dtype is None else dtype, "zeros")
    return _laid_out(lambda: _fill(_shape(shape), 0, dtype, device=device), out_sharding,
                     "jnp.zeros")


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ones (float32 by default)."""
    _check_forgot_shape_tuple("ones", shape, dtype)
    _check_device(device, out_sharding, filled=True)
    dtype = canonicalize_user_dtype(float if dtype is None else dtype, "ones")
    return _laid_out(lambda: _fill(_shape(shape), 1, dtype, device=device), out_sharding,
                     "jnp.ones")


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """Like zeros: arrays are immutable, so there is no uninitialized memory to hand out."""
    _check_forgot_shape_tuple("empty", shape, dtype)
    if dtype is not None and not (isinstance(dtype, np.dtype) and dtype == _core.float0):
        dtype = canonicalize_user_dtype(dtype, "empty")     # (under its own name, as JAX's)
    return zeros(shape, dtype, device=device, out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of `shape` filled with `fill_value` (broadcast if it is an array).

    >>> jnp.full((2,), 7)                  # weak, like the Python int
    Array([7, 7], dtype=int32, weak_type=True)
    """
    _check_device(device, out_sharding, filled=True)
    if out_sharding is not None:
        return _laid_out(lambda: full(shape, fill_value, dtype, device=device), out_sharding,
                         "full")
    if dtype is not None:
        dtype = canonicalize_user_dtype(dtype, "full")
    util.check_arraylike("full", fill_value)
    if np.ndim(fill_value) if not isinstance(fill_value, (Array, Tracer)) else fill_value.ndim:
        return util.broadcast_to(asarray(fill_value, dtype=dtype, device=device), _shape(shape))
    return _full_scalar(_shape(shape), fill_value, dtype, device)


def _full_scalar(shape, fill_value, dtype, device=None):
    # weak from a Python scalar, as JAX's, but not once put on a named device (JAX's device_put)
    weak = dtype is None and _core.is_weakly_typed(fill_value) and device is None
    if dtype is None:
        dtype = util.aval_of(fill_value).dtype
    if isinstance(fill_value, Tracer):
        # staged even when concrete: a JVP tracer's concrete primal would drop its tangent
        return util.full(shape, fill_value, dtype, weak)   # converts only if needed
    if isinstance(dtype, _core.ExtendedDType):
        return _fill(shape, fill_value, dtype, device=device)
    if isinstance(fill_value, Array):
        fill_value = np.asarray(fill_value)
    # a Python int wraps to `dtype` (NumPy's OverflowError only past 64 bits), as JAX's
    # lax.full converts it: jnp.full((n,), 0x85a308d3, jnp.uint32) is that number
    return _fill(shape, np.asarray(fill_value).astype(dtype), dtype, weak, device)


def _like(name, a, fill_value, dtype, shape, device=None, out_sharding=None):
    _check_device(device, out_sharding, filled=True)
    if out_sharding is None and device is None and shape is None and not isinstance(a, Tracer) \
            and not _eager() and _typed_abstract_sharding(a) and dtype is None:
        out_sharding = a.sharding   # (JAX's full_like types it so: `a` a ShapeDtypeStruct)
    if out_sharding is not None:     # (typed and laid out so, not as `a`)
        # (JAX's full_like names itself without the "jnp.")
        return _laid_out(lambda: _filled_like(name, a, fill_value, dtype, shape), out_sharding,
                         name if name == "full_like" else f"jnp.{name}")
    if type(getattr(a, "aval", None)) is ShapedArray and a.aval.split is not None and \
            isinstance(a, Tracer) and shape is None and device is None and not np.ndim(fill_value):
        # a traced value of a type split over a mesh: the result has that type (JAX's lax.full_like)
        return lax.full_like(a, fill_value, dtype and canonicalize_user_dtype(dtype, name))
    out = _filled_like(name, a, fill_value, dtype, shape, device)
    if device is None:
        out = lax.creation.laid_out_like(a, out)
    # in a shard_map body the result varies over the mesh axes `a` varies over, as in JAX
    return vma.vary_like(out, a)


def _typed_abstract_sharding(a) -> bool:
    """Whether `a` (not traced) has a NamedSharding over an AbstractMesh of Explicit axes
    alone, which JAX's full_like gives its result under a trace."""
    sharding = getattr(a, "sharding", None)
    return isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, AbstractMesh) and \
        sharding.mesh.are_all_axes_explicit and not getattr(a, "weak_type", False)


def _filled_like(name, a, fill_value, dtype, shape, device=None):
    if isinstance(a, (str, bytes)):
        # JAX's check passes text and its lax.full_like reads it as a dtype's name (its
        # dtypes.dtype): zeros_like('int8') is an int8 zero, zeros_like('a') refused as |S0;
        # with `dtype` given the text is not read at all
        a = np.zeros((), np.bool_ if dtype is not None else _core.dtype_of_named(a))
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
        if hasattr(a, "__jax_array__"):
            a = a.__jax_array__()
        util.check_text_args(a)
        util.check_arraylike(name, a)
    if _core.is_extended(dtype) or dtype is None and _core.is_extended(getattr(a, "dtype", None)):
        # an extended dtype (typed keys', a user's) is filled by its rules' full, as JAX's
        return lax.full_like(a, fill_value, dtype, shape)
    if dtype is not None:
        dtype = canonicalize_user_dtype(dtype, name)
    lax.conversion.refuse_text(fill_value)      # (read after `a`'s dtype, as JAX's)
    if hasattr(fill_value, "__jax_array__") and not isinstance(fill_value, (Array, Tracer)):
        fill_value = util.ensure_array(fill_value)      # a duck-typed array: its value
    if isinstance(a, (Array, Tracer)):
        aval = a.aval
    elif hasattr(a, "__jax_array__") and hasattr(a, "dtype") and hasattr(a, "shape"):
        # a duck-typed array: its shape and dtype, as JAX's, not its __jax_array__'s value
        aval = ShapedArray(tuple(a.shape), _core.canonicalize_dtype(a.dtype))
    else:
        aval = util.aval_of(a)
    shape = aval.shape if shape is None else _shape(shape)
    weak = dtype is None and aval.weak_type
    if device is None and type(a) is Array and a._sharding is None and a.committed and not weak:
        device = a.device       # JAX's full_like: on (committed to) a committed array's device
    if np.ndim(fill_value) if not isinstance(fill_value, (Array, Tracer)) else fill_value.ndim:
        return util.broadcast_to(asarray(fill_value, dtype=dtype or aval.dtype, device=device),
                                 shape)
    dtype = dtype or aval.dtype
    if isinstance(fill_value, Tracer):      # staged, so a JVP tracer keeps its tangent
        return util.full(shape, lax.conversion._convert_element_type(fill_value, dtype, weak))
    if isinstance(fill_value, Array) or type(fill_value) is int and _core.is_int(dtype) and \
            not _core.iinfo(dtype).min <= fill_value <= _core.iinfo(dtype).max:
        # (a Python int past the type's range wraps, as JAX's lax.full_like converts it:
        # full_like(int8 array, 300) is 44)
        fill_value = np.asarray(fill_value)
    return _fill(shape, np.asarray(fill_value).astype(dtype) if not isinstance(
        fill_value, _SCALARS) else fill_value, dtype, weak, device)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Zeros with the shape and dtype (and weak type) of `a`."""
    return _like("zeros_like", a, 0, dtype, shape, device, out_sharding)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Ones with the shape and dtype (and weak type) of `a`."""
    return _like("ones_like", a, 1, dtype, shape, device, out_sharding)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    return _like("empty_like", prototype, 0, dtype, shape, device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """`fill_value` with the shape and dtype (and weak type) of `a`.

    >>> jnp.full_like(jnp.ones(2), 3)
    Array([3., 3.], dtype=float32)
    """
    # text passes, as JAX's check passes it: `a` is read as a dtype's name where no `dtype` is
    # given, then the conversion of `fill_value` refuses text (_filled_like)
    # a duck-typed `a` (a ShapeDtypeStruct: its shape and dtype) is not checked, as in JAX
    duck = hasattr(a, "dtype") and hasattr(a, "shape")
    util.check_arraylike("full_like", *util.passing_text((0 if duck else a, fill_value)))
    return _like("full_like", a, fill_value, dtype, shape, device, out_sharding)


# ---------------------------------------------------------------- ranges
def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in [start, stop), as JAX computes them (start + step * iota).

    >>> jnp.arange(3), jnp.arange(0, 1, 0.25)
    (Array([0, 1, 2], dtype=int32), Array([0.  , 0.25, 0.5 , 0.75], dtype=float32))
    """
    _check_device(device, out_sharding, filled=True)
    # (JAX's iota takes it: the jaxpr shows iota[... sharding=...])
    sharding = canonicalize_sharding(out_sharding, "jnp.arange")
    if dtype is not None:
        dtype = canonicalize_user_dtype(dtype, "arange")
    # (text passes, as JAX's check passes it: the result type refuses it in JAX's words)
    util.check_arraylike_or_none("arange", *util.passing_text((start, stop, step)))
    start_name = "stop" if stop is None and step is None else "start"
    if stop is None and step is None and is_symbolic(start):    # jax.export: arange(x.shape[0])
        return lax.broadcasted_iota(dtype or _core.default_int_dtype(), (start,), 0)
    start = _concrete(start, f"It arose in the jnp.arange argument '{start_name}'")
    stop = _concrete(stop, "It arose in the jnp.arange argument 'stop'")
    step = _concrete(step, "It arose in the jnp.arange argument 'step'")
    for name, val in ((start_name, start), ("stop", stop), ("step", step)):
        if val is not None and np.ndim(val) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={val}")
    if any(is_symbolic(v) for v in (start, stop, step)):     # jax.export
        start, stop = (0, start) if stop is None else (start, stop)
        return _arange_symbolic(start, stop, 1 if step is None else step,
                                dtype or _core.default_int_dtype())
    if dtype is None:
        dtype = result_type(start, *(x for x in (stop, step) if x is not None))
    if any(np.iscomplexobj(v) for v in (start, stop, step) if v is not None):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported "
                         "starting in JAX v0.10.0.")
    start, stop, step = (v.item() if isinstance(v, (Array, np.ndarray, np.generic)) else v
                         for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is not None:
        # (bfloat16 and the float8s too, whose NumPy kind is 'V')
        working = np.dtype(np.float32) if _core.is_float(dtype) and dtype.itemsize < 4 else dtype
        size = max(0, int(np.ceil((stop - start) / step)))
        out = lax.add(lax.convert_element_type(start, working),
                      lax.mul(lax.convert_element_type(step, working),
                              lax.broadcasted_iota(working, (size,), 0, out_sharding=sharding)))
        out = lax.convert_element_type(out, dtype)
    elif start == 0:
        size = max(0, int(np.ceil(stop)))
        # made on the host and copied, sparing a compile per size; under a transfer guard
        # XLA's iota, as JAX's (which moves nothing from the host)
        host = _eager() and sharding is None and not config._transfer_guarded
        out = _on_device(np.arange(size, dtype=dtype)) if host else \
            lax.broadcasted_iota(dtype, (size,), 0, out_sharding=sharding)
    else:
        size = max(0, int(np.ceil(stop - start)))
        out = lax.add(lax.convert_element_type(start, dtype),
                      lax.broadcasted_iota(dtype, (size,), 0, out_sharding=sharding))
    return out if device is None else place(out, device)


def _arange_symbolic(start, stop, step, dtype):
    """arange with a symbolic start, stop or step (jax.export): start + step * iota(size),
    size JAX's `max(0, distance + gap - 1) // gap`; the step's sign must be decidable.

    >>> import jxkernel as jax
    >>> b, = jax.export.symbolic_shape("b")
    >>> jax.eval_shape(lambda: _arange_symbolic(0, 5 * b, 2, np.int32)).shape
    (floordiv(5*b + 1, 2),)
    """
    if not all(is_symbolic(v) or isinstance(v, (int, np.integer)) and not isinstance(v, bool)
               for v in (start, stop, step)):
        raise ValueError("In arange with non-constant arguments all of start, stop, and step "
                         f"must be either dimension expressions or integers: start={start}, "
                         f"stop={stop}, step={step}")
    must = (f"In arange with non-constant arguments the step ({step}) must be resolved "
            f"statically if it is > 0 or < 0")
    if decided(lambda: step == 0, must):
        raise ValueError("arange has step == 0")
    forward = decided(lambda: step > 0, must)
    gap, distance = (step, stop - start) if forward else (-step, start - stop)
    size = max_dim(0, distance + gap - 1) // gap
    return lax.add(asarray(start, dtype=dtype),
                   lax.mul(asarray(step, dtype=dtype), lax.iota(dtype, size)))


# ---------------------------------------------------------------- matrices, grids
def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-D array with ones on the k-th diagonal.

    >>> jnp.eye(2, dtype=int)
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    dtype = canonicalize_user_dtype(float if dtype is None else dtype, "eye")
    _check_eye_offset(k)
    n = _concrete_int(N, "The argument 'N' of jnp.eye()", "argument of 'N' jnp.eye()")
    m = n if M is None else _concrete_int(M, "The argument 'M' of jnp.eye()",
                                          "argument 'M' of jnp.eye()")
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    if isinstance(k, Tracer) and k.to_concrete_value() is None:
        return _diagonal_mask(n, m, traced_offset(k), lax.eq, dtype)
    k = operator.index(_concrete(k, "It arose in the argument 'k' of jnp.eye"))
    k = max(-n, min(m, k))      # a diagonal past the corner: all zeros (k=2**100 fits no int)
    if _eager() or device is not None:
        return _on_device(np.eye(n, m, k, dtype=dtype), device=device)
    return _diagonal_mask(n, m, np.int32(k), lax.eq, dtype)


def _check_eye_offset(k) -> None:
    """JAX's check of eye's `k`, before its sizes: a scalar integer (a Python int, or a 0-d
    integer array, traced too); a float or a vector is its ValueError (text and other
    objects meet the array conversion's TypeError after). A bool is a Python int here too."""
    if isinstance(k, int):
        return
    aval = k.aval if isinstance(k, Tracer) else np.asarray(k)
    if aval.dtype.kind in "OUSV":
        return
    if not (aval.shape == () and aval.dtype.kind in "iu"):
        raise ValueError(f"k must be a scalar integer; got {k}")


def identity(n, dtype=None):
    """The n x n identity matrix."""
    if dtype is not None:       # (checked under its own name, as JAX's)
        dtype = canonicalize_user_dtype(dtype, "identity")
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the k-th diagonal (float32 by default, as in JAX)."""
    dtype = np.dtype(np.float32) if dtype is None else canonicalize_user_dtype(dtype, "tri")
    n, m = _shape((N, N if M is None else M), op="iota")     # JAX's errors: its canonical shape
    if isinstance(k, Tracer) and k.to_concrete_value() is None:
        return _traced_tri(n, m, k, dtype)      # a traced diagonal, as JAX's takes one
    k = operator.index(_concrete(k, "It arose in the argument 'k' of jnp.tri"))
    _check_python_int(k, _core.default_int_dtype())     # JAX's OverflowError
    k = max(-n - 1, min(m, k))      # a diagonal past the corner: all ones or all zeros
    if _eager():
        return _on_device(np.tri(n, m, k, dtype=dtype))
    return _diagonal_mask(n, m, np.int32(k), lax.ge, dtype)


def _traced_tri(n: int, m: int, k, dtype):
    offset = util.ensure_array(k)
    if offset.shape != () or not _core.is_int(offset.dtype):
        raise TypeError(f"offset must be an integer, got {k!r}")
    return _diagonal_mask(n, m, offset, lax.ge, dtype)


def traced_offset(k):
    """A traced diagonal offset `k` (eye's, trace's) as JAX's eye takes it: a scalar integer,
    else JAX's ValueError naming it (`jnp.trace(x, 1.0)`: k must be a scalar integer; got
    JitTracer(~float32[]))."""
    offset = util.ensure_array(k)
    if offset.shape != () or not _core.is_int(offset.dtype):
        raise ValueError(f"k must be a scalar integer; got {k}")
    return offset


def _diagonal_mask(n: int, m: int, offset, compare, dtype):
    """`compare(row + offset, column)` over an (n, m) grid, as `dtype`: eye's diagonal
    (lax.eq), tri's lower triangle (lax.ge); the offset a static int32 or a traced int."""
    i = lax.broadcasted_iota(offset.dtype, (n, m), 0)
    j = lax.broadcasted_iota(offset.dtype, (n, m), 1)
    return lax.convert_element_type(compare(lax.add(i, offset), j), dtype)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Coordinate grids from 1-D arrays ('xy': Cartesian, 'ij': matrix indexing).

    >>> [g.shape for g in jnp.meshgrid(jnp.arange(2), jnp.arange(3))]
    [(3, 2), (3, 2)]
    """
    args = util.ensure_arraylike_tuple("meshgrid", xi)
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(a.ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in args]}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else a.shape[0] for a in args]
    outs = []
    for i, a in enumerate(args):
        s = [*shape[:i], a.shape[0], *shape[i + 1:]] if sparse else shape
        outs.append(lax.broadcast_in_dim(a, tuple(s), (i,)))
    if indexing == "xy" and len(args) >= 2:
        outs[0], outs[1] = outs[1], outs[0]
    return outs
