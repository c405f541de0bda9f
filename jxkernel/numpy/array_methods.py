"""Operators and methods of `jxkernel.Array` and of every Tracer, as `jax.Array` has them.

    >>> x = jnp.arange(6).reshape(2, 3)
    >>> (x / 2).sum(axis=0), x.T.shape, x.at[0, 0].set(7)[0, 0]
    (Array([1.5, 2.5, 3.5], dtype=float32), (3, 2), Array(7, dtype=int32))

`install()` (called by jxkernel.numpy on import) sets them on both classes, so user code
treats traced values and arrays alike. Each one is a thin call into a jnp function; the
modules owning reductions, shapes, products, sorting and indexing are looked up when a
method is called, not at import.
"""
from __future__ import annotations

import sys

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError, _origin, aval_text
from ..core.native import native
from ..core.trace import Tracer, forward_to_high_type
from ..core.traceback_util import filter_raised, register_boundary
from ..core.interpreter_primitives import typed_scalar
from ..xla.array import KEY_TRACERS, Array
from ..lax.transfer import place
from . import ufuncs
from .array_api import array_namespace
from .creation import astype, copy
from .dtypes import canonicalize_user_dtype, itemsize_bits
from .manipulation import _compute_newshape, reshaped

def _jnp(name: str):
    """The jnp function `name`, looked up when called (its module may land after this one)."""
    fn = getattr(sys.modules["jxkernel.numpy"], name, None)
    if fn is None:
        raise NotImplementedError(f"jxkernel.numpy.{name} is not implemented yet")
    return fn


def _jnp_private(module: str, name: str):
    mod = sys.modules.get(f"jxkernel.numpy.{module}")
    fn = getattr(mod, name, None)
    if fn is None:
        raise NotImplementedError(f"jxkernel.numpy.{module}.{name} is not implemented yet")
    return fn


# ---------------------------------------------------------------- operators
_ACCEPTED = (int, float, complex, np.generic, np.ndarray, Array, Tracer)


def _binop(fn, name, reflected=False, symbol=None, reject_seq=False):
    """Operator that defers (NotImplemented) to operands jnp does not accept."""
    def op(self, other):
        if not isinstance(other, _ACCEPTED):
            m = getattr(other, "__jax_array__", None)
            if m is not None:
                other = m()
            elif reject_seq and type(other) in (tuple, list, dict, set):
                a, b = (other, self) if reflected else (self, other)
                raise TypeError(f"unsupported operand type(s) for {symbol}: "
                                f"{type(a).__name__!r} and {type(b).__name__!r}")
            else:
                return NotImplemented
        elif type(other) is np.ndarray and not dtypes.is_numeric_kind(other.dtype):
            # NumPy text or objects: jnp's public function, whose jit refuses them in JAX's
            # words (the argument's path named), where the promotion named jxkernel's dtypes
            public = getattr(sys.modules["jxkernel.numpy"], fn.__name__, fn)
            return public(other, self) if reflected else public(self, other)
        try:      # a traceback boundary where the learner's `x + y` enters jnp (none before:
            return fn(other, self) if reflected else fn(self, other)   # JAX's own check's error
        except Exception as e:                                          # has no note either)
            filter_raised(e)
            raise
    register_boundary(op.__code__)
    op.__name__ = op.__qualname__ = f"__{name}__"
    return op


def _matmul(a, b):
    return _jnp("matmul")(a, b)


def _setitem(self, i, x):
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _round(number, ndigits=None):
    out = ufuncs.round(number, decimals=ndigits or 0)
    return astype(out, int) if ndigits is None else out


def _getitem(self, item):
    return _jnp_private("indexing", "rewriting_take")(self, item)


def _tracer_iter(self):
    """Rows along the first axis, staged as slice + squeeze (as JAX does); a 0-d value
    refuses at `iter(x)`, as JAX's does."""
    if not self.aval.shape:
        raise TypeError("iteration over a 0-d array")
    rows = _tracer_rows(self, self.aval.shape)
    # (the notebook watching for reused keys: a for loop's keys under vmap are followed)
    return KEY_TRACERS[0].looped(self, rows) if KEY_TRACERS else rows


def _tracer_rows(self, shape):
    for i in range(shape[0]):
        # strides given (1, ...): JAX's index_in_dim passes them, and its jaxpr prints them
        row = lax.slice(self, (i,) + (0,) * (len(shape) - 1), (i + 1,) + shape[1:],
                        (1,) * len(shape))
        yield lax.squeeze(row, (0,))


def _contains(self, other):
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    if self.ndim != 1:
        raise ValueError(f"Array.__contains__: search array must be one-dimensional, got "
                         f"arr.shape={self.shape}.")
    if np.ndim(other) != 0:
        raise ValueError(f"Array.__contains__: query value must be a scalar, got "
                         f"query.shape={np.shape(other)!r}")
    eq = ufuncs.equal(self, other)
    return lax.reduce_or(eq, (0,))


_OPERATORS = {
    "__add__": _binop(ufuncs.add, "add", symbol="+", reject_seq=True),
    "__radd__": _binop(ufuncs.add, "radd", True, "+", True),
    "__sub__": _binop(ufuncs.subtract, "sub"),
    "__rsub__": _binop(ufuncs.subtract, "rsub", True),
    "__mul__": _binop(ufuncs.multiply, "mul", symbol="*", reject_seq=True),
    "__rmul__": _binop(ufuncs.multiply, "rmul", True, "*", True),
    "__truediv__": _binop(ufuncs.true_divide, "truediv"),
    "__rtruediv__": _binop(ufuncs.true_divide, "rtruediv", True),
    "__floordiv__": _binop(ufuncs.floor_divide, "floordiv"),
    "__rfloordiv__": _binop(ufuncs.floor_divide, "rfloordiv", True),
    "__mod__": _binop(ufuncs.remainder, "mod"),
    "__rmod__": _binop(ufuncs.remainder, "rmod", True),
    "__divmod__": _binop(ufuncs.divmod, "divmod"),
    "__rdivmod__": _binop(ufuncs.divmod, "rdivmod", True),
    "__pow__": _binop(ufuncs.power, "pow"),
    "__rpow__": _binop(ufuncs.power, "rpow", True),
    "__matmul__": _binop(_matmul, "matmul"),
    "__rmatmul__": _binop(_matmul, "rmatmul", True),
    "__and__": _binop(ufuncs.bitwise_and, "and"),
    "__rand__": _binop(ufuncs.bitwise_and, "rand", True),
    "__or__": _binop(ufuncs.bitwise_or, "or"),
    "__ror__": _binop(ufuncs.bitwise_or, "ror", True),
    "__xor__": _binop(ufuncs.bitwise_xor, "xor"),
    "__rxor__": _binop(ufuncs.bitwise_xor, "rxor", True),
    "__lshift__": _binop(ufuncs.left_shift, "lshift"),
    "__rlshift__": _binop(ufuncs.left_shift, "rlshift", True),
    "__rshift__": _binop(ufuncs.right_shift, "rshift"),
    "__rrshift__": _binop(ufuncs.right_shift, "rrshift", True),
    "__eq__": _binop(ufuncs.equal, "eq", symbol="==", reject_seq=True),
    "__ne__": _binop(ufuncs.not_equal, "ne", symbol="!=", reject_seq=True),
    "__lt__": _binop(ufuncs.less, "lt"),
    "__le__": _binop(ufuncs.less_equal, "le"),
    "__gt__": _binop(ufuncs.greater, "gt"),
    "__ge__": _binop(ufuncs.greater_equal, "ge"),
    "__neg__": lambda self: ufuncs.negative(self),
    "__pos__": lambda self: ufuncs.positive(self),
    "__abs__": lambda self: ufuncs.absolute(self),
    "__invert__": lambda self: ufuncs.invert(self),
    "__round__": _round,
    "__getitem__": _getitem,
    "__setitem__": _setitem,
    "__contains__": _contains,
}


# ---------------------------------------------------------------- methods
def _delegate(name):
    def method(self, *args, **kwargs):
        try:
            return _jnp(name)(self, *args, **kwargs)
        except TypeError as e:      # JAX's method is `_sum`: "_sum() got an unexpected ..."
            if str(e).startswith((f"{name}() got an unexpected keyword argument ",
                                  f"{name}() takes ")):   # (and "_repeat() takes from 2 to 3")
                raise TypeError(f"_{e}") from None
            raise
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"jnp.{name}(self, ...)."
    return method


def _sort(self, *args, **kwargs):
    """jnp.sort(self, ...): a sorted copy. NumPy's x.sort() sorts x in place, so the line is
    recorded for the notebook's note on a copy the line dropped (notebook/notes/update_notes.py)."""
    out = _jnp("sort")(self, *args, **kwargs)
    _jnp_private("indexing", "_record_update_site")()      # (once sorted: see indexing's)
    return out


def _reshape(self, *args, order="C", out_sharding=None):
    """x.reshape(2, 3) or x.reshape((2, 3)); one size may be -1."""
    __tracebackhide__ = True  # noqa: F841  (as JAX's)
    return reshaped(self, _compute_newshape(self.shape, args[0] if len(args) == 1 else args),
                    order, out_sharding)


def _transpose(self, *args):
    if not args:
        axes = None
    elif len(args) == 1:
        axes = args[0] if args[0] is None else tuple(np.atleast_1d(args[0]).tolist()) \
            if not isinstance(args[0], (tuple, list)) else tuple(args[0])
    else:
        axes = tuple(args)
    return _jnp("transpose")(self, axes)


def _T(self):
    return _jnp("transpose")(self)


def _mT(self):
    fn = getattr(sys.modules["jxkernel.numpy"], "matrix_transpose", None)
    if fn is not None:
        return fn(self)
    if self.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got {self.ndim=}")
    perm = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)
    return lax.transpose(self, perm)


def _flatten(self, order="C", *, out_sharding=None):
    return _jnp("ravel")(self, order=order, out_sharding=out_sharding)


def _clip(self, min=None, max=None):
    # (no **kwargs, as JAX's: x.clip(a_max=2.0) is "_clip() got an unexpected keyword ...")
    return ufuncs.clip(self, min, max)


def _astype(self, dtype, copy=False, device=None):
    return astype(self, dtype, copy=copy, device=device)


def _copy(self):
    return copy(self)


def _byteswap(self):
    """Each element's bytes reversed, the dtype kept (JAX's: bitcast to uint8, reverse the
    last axis, bitcast back; a complex number's parts swapped apart)."""
    dtype = np.dtype(self.dtype)
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax.complex(_byteswap(ufuncs.real(self)), _byteswap(ufuncs.imag(self)))
    if dtype.itemsize == 1:
        return copy(self)
    as_bytes = lax.bitcast_convert_type(self, np.dtype("uint8"))
    return lax.bitcast_convert_type(lax.rev(as_bytes, (len(self.shape),)), dtype)


def _item(self, *args):
    value = self.to_concrete_value()
    if value is None:
        raise ConcretizationTypeError(self, "This occurred in the item() method of "
                                            "jax.Array\n")     # JAX's words and line break
    return np.asarray(value).item(*args)


def _tracer_dlpack(self, *args, **kwargs):
    raise ConcretizationTypeError(self, "The __dlpack__() method was called on a traced "
                                        "array. ")


def _tobytes(self, order="C"):
    # JAX 0.10.2's words (Tracer.tobytes): bytes of a traced value would be taken from nothing;
    # the origin line is in its context as well, so JAX prints it twice (as tolist)
    raise ConcretizationTypeError(self, f"The tobytes() method was called on traced array "
                                        f"with shape {aval_text(self.aval, weak=False)}.\n"
                                        f"{_origin(self)}")


def _tolist(self):
    # JAX 0.10.2's words; refused even where the value is known while tracing (a grad's
    # primal), as JAX's Tracer.tolist: a list of Python numbers would cut the derivative.
    # JAX's context already holds the origin line, so jit's or vmap's prints twice
    raise ConcretizationTypeError(self, f"The tolist() method was called on traced array "
                                        f"with shape {aval_text(self.aval, weak=False)}.\n"
                                        f"{_origin(self)}")


def _view(self, dtype=None, type=None):
    """The same bits as another dtype (same or divisible item sizes)."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = canonicalize_user_dtype(dtype, "view")
    bits_in, bits_out = itemsize_bits(self.dtype), itemsize_bits(dtype)   # int4: 4, as JAX
    if self.ndim == 0:
        if bits_in != bits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is "
                             "unchanged.")
        return lax.squeeze(_view(lax.expand_dims(self, (0,)), dtype), (0,))
    if self.shape[-1] * bits_in % bits_out != 0:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    if self.dtype == dtype:
        return self
    if self.dtype == np.bool_:
        return _view(astype(self, np.uint8), dtype)
    if dtype == np.bool_:
        return astype(_view(self, np.uint8), np.bool_)
    if self.dtype.kind == "c":          # as its real and imaginary parts, interleaved
        parts = [lax.expand_dims(part, (self.ndim,)) for part in (ufuncs.real(self),
                                                                  ufuncs.imag(self))]
        pairs = lax.concatenate(parts, self.ndim)
        return _view(lax.reshape(pairs, self.shape[:-1] + (2 * self.shape[-1],)), dtype)
    if dtype.kind == "c":               # JAX's: re + 1j * im of the parts
        real = astype(_view(self, dtypes.finfo(dtype).dtype), dtype)
        n = real.shape[-1]
        re, im = (lax.slice_in_dim(real, i, n, 2, real.ndim - 1) for i in (0, 1))
        return ufuncs.add(re, ufuncs.multiply(typed_scalar(1j, dtype), im))
    if bits_in < bits_out:
        factor = bits_out // bits_in
        out = lax.reshape(self, self.shape[:-1] + (self.shape[-1] // factor, factor))
        return lax.bitcast_convert_type(out, dtype)
    if bits_in > bits_out:
        out = lax.bitcast_convert_type(self, dtype)
        return lax.reshape(out, out.shape[:-2] + (out.shape[-2] * out.shape[-1],))
    return lax.bitcast_convert_type(self, dtype)


def _flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


def _at(self):
    return _jnp_private("indexing", "_IndexUpdateHelper")(self)


def _to_device(self, device, *, stream=None):
    if stream is not None:
        raise NotImplementedError("stream argument of array.to_device()")
    return place(self, device)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    return _jnp("compress")(condition, self, axis=axis, out=out, size=size,
                                        fill_value=fill_value)


def _nonzero(self, *, fill_value=None, size=None):
    return _jnp("nonzero")(self, size=size, fill_value=fill_value)


def _choose(self, choices, out=None, mode="raise"):
    return _jnp("choose")(self, choices, out=out, mode=mode)


_METHODS = {
    **{n: _delegate(n) for n in
       ("all", "any", "argmax", "argmin", "argpartition", "argsort", "cumprod", "cumsum",
        "diagonal", "dot", "max", "mean", "min", "prod", "ptp", "repeat", "searchsorted",
        "squeeze", "std", "sum", "swapaxes", "take", "trace", "var")},
    "sort": _sort,
    # here
    "astype": _astype, "byteswap": _byteswap, "clip": _clip, "compress": _compress,
    "choose": _choose,
    "conj": lambda self: ufuncs.conj(self), "conjugate": lambda self: ufuncs.conjugate(self),
    "flatten": _flatten, "ravel": _flatten, "nonzero": _nonzero, "reshape": _reshape,
    "round": lambda self, decimals=0, out=None: ufuncs.round(self, decimals, out),
    "transpose": _transpose, "view": _view, "to_device": _to_device,
    "__array_namespace__": array_namespace,
}
_TRACER_ONLY = {"copy": _copy, "item": _item, "tolist": _tolist, "tobytes": _tobytes,
                "__iter__": _tracer_iter,
                "__dlpack__": _tracer_dlpack}
_PROPERTIES = {
    "T": _T, "mT": _mT, "real": lambda self: ufuncs.real(self),
    "imag": lambda self: ufuncs.imag(self), "flat": _flat, "at": _at,
}
_TRACER_PROPERTIES = {
    "nbytes": lambda self: self.aval.size * self.aval.dtype.itemsize,
    "itemsize": lambda self: self.aval.dtype.itemsize,
}


# Array's +, -, *, / compiled (core/native.py): on two Arrays of one type (jnp's promotion
# changes nothing then) the primitive's last eager run in C, else the operator above
_ARRAY_OPERATORS = {} if native is None else {
    name: native.binary_operator(_OPERATORS[name], prim, inexact_only=name == "__truediv__")
    for name, prim in [("__add__", lax.add_p), ("__sub__", lax.sub_p), ("__mul__", lax.mul_p),
                       ("__truediv__", lax.div_p)]}


def install() -> None:
    """Put the operators, methods and properties on Array and Tracer (idempotent)."""
    for cls in (Array, Tracer):
        own = _ARRAY_OPERATORS if cls is Array else {}
        for name, fn in {**_OPERATORS, **own, **_METHODS}.items():
            setattr(cls, name, fn if cls is Array else _for_tracers(name, fn))
        for name, fn in _PROPERTIES.items():
            setattr(cls, name, property(fn if cls is Array else _for_tracers(name, fn, True)))
    for name, fn in _TRACER_ONLY.items():
        setattr(Tracer, name, _for_tracers(name, fn))
    for name, fn in _TRACER_PROPERTIES.items():
        setattr(Tracer, name, property(_for_tracers(name, fn, True)))


def _for_tracers(name, fn, is_property=False):
    """Tracer's `name`: on a tracer of a high type (core/hijax.py) its type's own, as JAX's
    tracers forward to their aval (an operator to its `_op`, a method or property to the
    attribute of that name, Tracer.__getattr__); on array tracers, `fn`."""
    if name.startswith("__") and name.endswith("__") and name != "__array_namespace__":
        return forward_to_high_type(fn, name)

    def attribute(self, *args, **kwargs):
        if not getattr(self.aval, "is_high", False):
            return fn(self, *args, **kwargs)
        found = Tracer.__getattr__(self, name)
        return found if is_property else found(*args, **kwargs)
    attribute.__name__ = attribute.__qualname__ = name
    attribute.__wrapped__ = fn
    return attribute
