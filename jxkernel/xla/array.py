"""`Array`: the device array users see, wrapping a jaxlib buffer.

    >>> x = device_put(np.arange(3.0))
    >>> x
    Array([0., 1., 2.], dtype=float32)

We wrap jaxlib's `ArrayImpl` rather than patching it, so that `jax` itself can be
imported in the same process (jax patches that class its own way). Arrays are
immutable: data put from NumPy is copied unless NumPy's buffer is read-only.
Operators and array methods (`+`, `.sum()`, `.at[]`, ...) are installed by
jxkernel.numpy, which owns their semantics.
"""
from __future__ import annotations

import functools

import numpy as np

from ..config import config
from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.trace import Tracer
from . import client as _client
from .client import xc


@functools.lru_cache(maxsize=None)
def sharding_for(devices: tuple):
    """A sharding object for a buffer on `devices`, replicated; needs no Python hooks."""
    return xc.GSPMDSharding(xc.DeviceList(devices), xc.HloSharding.replicate())


class DeletedArrayError(RuntimeError):
    pass


class Array:
    """An immutable array on a device. Reading its value waits for the computation."""
    __slots__ = ("_buf", "aval", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf, aval: ShapedArray):
        self._buf = buf
        self.aval = aval
        self._npy = None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    # ---------------------------------------------------------------- devices
    def devices(self) -> set:
        return set(self._buf._sharding._devices)

    @property
    def device(self):
        devices = self._buf._sharding._devices
        if len(devices) != 1:
            raise ValueError(f"This Array lives on {len(devices)} devices; use .devices()")
        return devices[0]

    @property
    def committed(self) -> bool:
        return self._buf._committed

    @property
    def platform(self) -> str:
        return _client.platform_of(self.device)

    def block_until_ready(self) -> Array:
        """Wait until the computation producing this array is done; returns self."""
        self._check_alive()
        self._buf.block_until_ready()
        return self

    def is_ready(self) -> bool:
        return self._buf.is_ready()

    def is_deleted(self) -> bool:
        return self._buf.is_deleted()

    def delete(self) -> None:
        self._npy = None
        self._buf.delete()

    def _check_alive(self):
        if self._buf.is_deleted():
            raise DeletedArrayError(
                f"Array has been deleted with shape={self.aval.str_short()}: it was donated to a "
                f"jitted computation (donate_argnums) or .delete() was called. Use the "
                f"computation's result instead, or do not donate this argument.")

    # ---------------------------------------------------------------- values
    def _value(self) -> np.ndarray:
        """The data as a read-only NumPy array (waits for the computation)."""
        if self._npy is None:
            self._check_alive()
            buf = self._buf
            if len(buf._arrays) != 1:
                buf = buf._arrays[0]
            value, _ = buf._single_device_array_to_np_array_did_copy()
            if value.flags.writeable:
                value.flags.writeable = False
            self._npy = value
        return self._npy

    def __array__(self, dtype=None, copy=None):
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        return value.copy() if copy else value

    def tolist(self):
        return self._value().tolist()

    def item(self, *args):
        return self._value().item(*args)

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __index__(self):
        if not dtypes.is_int(self.dtype):
            raise TypeError(f"Only integer arrays can be used as an index; got {self.aval.str_short()}")
        return int(self._scalar("index"))

    def _scalar(self, what):
        if self.aval.size != 1:
            raise TypeError(f"Only arrays of one element can be converted to Python scalars "
                            f"(by {what}()); got shape {self.shape}")
        return self._value().reshape(()).item() if self.dtype != dtypes.bfloat16 \
            else self._value().reshape(())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'. Arrays are mutable-looking containers; "
                        "use a tuple of Python scalars (x.tolist()) as a dict key or static argument.")

    def __reduce__(self):
        return device_put, (np.array(self._value()),)

    def copy(self) -> Array:
        return device_put(self, copy=True)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self.copy()

    def __format__(self, spec):
        return format(self._value(), spec) if self.ndim == 0 else str(self)

    # ---------------------------------------------------------------- display
    def __repr__(self):
        if self._buf.is_deleted():
            return f"Array(<deleted>, shape={self.shape}, dtype={self.dtype.name})"
        prefix = "Array("
        weak = ", weak_type=True" if self.weak_type else ""
        dtype_text = f"dtype={self.dtype.name}{weak})"
        value = self._value()
        if value.size == 0:
            return f"{prefix}[], shape={self.shape}, {dtype_text}"
        body = np.array2string(value, prefix=prefix, separator=", ",
                               suffix=", " + dtype_text, threshold=1000)
        return f"{prefix}{body}, {dtype_text}"

    def __str__(self):
        return str(self._value())

    def _repr_html_(self):
        import html
        device = ", ".join(str(d) for d in sorted(self.devices(), key=lambda d: d.id))
        head = (f"<b>Array</b> <code>{self.aval.str_short()}</code> "
                f"<span style='color:#666'>{self.dtype.name}"
                f"{' (weak)' if self.weak_type else ''} on {html.escape(device)}</span>")
        if self._buf.is_deleted():
            return head + "<br><i>deleted (donated)</i>"
        with np.printoptions(threshold=200, edgeitems=3, linewidth=100):
            body = html.escape(np.array2string(self._value(), separator=", "))
        return f"<div>{head}<pre style='margin:2px 0'>{body}</pre></div>"


# ---------------------------------------------------------------- transfers
_IMMUTABLE = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
_ZERO_COPY = xc.HostBufferSemantics.ZERO_COPY


def host_to_device(value: np.ndarray, aval: ShapedArray, device) -> Array:
    """Put NumPy data (already of `aval`'s dtype) on `device` as an Array."""
    semantics = _IMMUTABLE if value.flags.writeable else _ZERO_COPY
    buf = xc.batched_device_put(aval, sharding_for((device,)), [value], [device], True, False,
                                semantics, True)
    return Array(buf, aval)


def to_numpy(x, dtype=None) -> np.ndarray:
    """`x` as NumPy data of its canonical dtype (or of `dtype`)."""
    if dtypes.is_python_scalar(x):
        target = dtype if dtype is not None else dtypes.python_scalar_dtype(x)
        return _python_scalar_to_numpy(x, target)
    value = np.asarray(x)
    if value.dtype == object:
        raise TypeError(f"Cannot convert {type(x).__name__} to an array: it holds Python "
                        f"objects (dtype=object)")
    target = dtypes.canonicalize_dtype(value.dtype if dtype is None else dtype)
    return value if value.dtype == target else value.astype(target)


def _python_scalar_to_numpy(x, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if type(x) is int and dtype in dtypes.INT_DTYPES:
        info = np.iinfo(dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")
    return np.asarray(x, dtype=dtype)


def device_put(x, device=None, *, copy=False) -> Array:
    """`x` (an Array, NumPy data or a Python scalar) as an Array on `device`.

    >>> device_put(1.0)
    Array(1., dtype=float32, weak_type=True)
    """
    if isinstance(x, Tracer):
        raise TypeError(f"device_put of a traced value {x} is not allowed here")
    if device is None:
        device = _client.default_device() if not isinstance(x, Array) else x.device
    if isinstance(x, Array):
        x._check_alive()
        if x.device == device and not copy:
            return x
        buf = xc.batched_device_put(x.aval, sharding_for((device,)), [x._buf], [device],
                                    True, True, _IMMUTABLE, True)
        return Array(buf, x.aval)
    if dtypes.is_python_scalar(x):
        aval = get_aval(x)
        value = _python_scalar_to_numpy(x, aval.dtype)
    else:
        value = to_numpy(x)
        aval = ShapedArray(value.shape, value.dtype)
    return host_to_device(value, aval, device)
