"""jax._src.error_check: errors found while a program runs, raised afterwards. Inside jit,
vmap, cond, while or scan, `set_error_if(pred, msg)` records the first failing check in an
error state (a Ref holding an error code); after the call, `raise_if_error()` raises it as a
`JaxValueError` carrying the traceback of the `set_error_if` that failed, and clears it.

    >>> @jax.jit
    ... def f(x):
    ...     set_error_if(x <= 0, "x must be greater than 0")
    ...     return x + 1
    >>> _ = f(jnp.array([1, -1]))
    >>> raise_if_error()
    Traceback (most recent call last):
    ...
    jax._src.error_check.JaxValueError: x must be greater than 0

As JAX 0.10.2's: the error code is a uint32, `_NO_ERROR` (its largest value) until a check
fails; a later failure does not replace it. Each `set_error_if` traced adds its message and
traceback to a list the code indexes. Over a mesh (`error_checking_context()` inside
`jax.set_mesh`), the state is one code per device, laid out over the mesh's axes.
"""
from __future__ import annotations

import dataclasses
import sys
import threading
import traceback
import types
import warnings

import numpy as np

from ..core import dtypes
from .. import numpy as jnp
from ..core.mesh import AxisType, NamedSharding, PartitionSpec, get_mesh
from ..core.trace import Tracer, current_trace, eval_trace, set_current_trace
from ..core.traceback_util import filter_traceback, register_exclusion
from ..tree_util import register_dataclass
from .state import new_ref

register_exclusion(__file__)


class JaxValueError(ValueError):
    """An error `set_error_if` found while a program ran, raised by `raise_if_error`."""


JaxValueError.__module__ = "jax._src.error_check"     # as JAX's tracebacks name it

_NO_ERROR = dtypes.iinfo(np.uint32).max

_error_list_lock = threading.RLock()
_error_list: list = []              # (message, traceback) per set_error_if traced


class _ErrorStorage(threading.local):
    """The error state of this thread: a Ref of uint32 codes, made on first use."""

    def __init__(self):
        self.ref = None


_error_storage = _ErrorStorage()


def _initialize_error_code_ref(traced: bool = False) -> None:
    """A fresh error state: a scalar code, or over the context's mesh one code per device
    (an array of the mesh's axis sizes laid out over its axes). Made eagerly, also when first
    used under jit (the process's state outlives the trace); `traced`: in the trace of the
    moment, a state of the traced function's own (wrap_for_export's: JAX's Ref made while
    tracing, so that the exported program has no Ref among its inputs and outputs)."""
    with set_current_trace(current_trace() if traced else eval_trace):
        mesh = get_mesh()
        if mesh is None or not mesh.axis_names:
            code = np.uint32(_NO_ERROR)
        else:
            code = jnp.full(tuple(mesh.axis_sizes), np.uint32(_NO_ERROR), dtype=np.uint32,
                            device=NamedSharding(mesh, PartitionSpec(*mesh.axis_names)))
        _error_storage.ref = new_ref(code)


class error_checking_context:
    """A new error state for the block, laid out over the context's mesh (the one outside
    is restored after it)."""
    __slots__ = ("old_ref",)

    def __init__(self):
        self.old_ref = None

    def __enter__(self):
        self.old_ref = _error_storage.ref
        _initialize_error_code_ref()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _error_storage.ref = self.old_ref


def _traceback_here(frame) -> types.TracebackType | None:
    """The traceback of `frame` and its callers, outermost first, jxkernel's frames left out
    (what JAX records from the equation's source info)."""
    tb = None
    while frame is not None:
        tb = types.TracebackType(tb, frame, frame.f_lasti, frame.f_lineno)
        frame = frame.f_back
    return filter_traceback(tb)


def set_error_if(pred, /, msg: str) -> None:
    """Set the error state to `msg` where any element of `pred` is True, unless an error is
    set already (`raise_if_error` raises it later). Traced: the check runs with the program."""
    if _error_storage.ref is None:
        _initialize_error_code_ref()
    ref = _error_storage.ref
    with _error_list_lock:
        new_code = np.uint32(len(_error_list))
        _error_list.append((msg, _traceback_here(sys._getframe(1))))
    mesh = get_mesh()
    if ref.shape and mesh is not None and any(t == AxisType.Auto for t in mesh.axis_types):
        warnings.warn("When at least one mesh axis of `pred` is in auto mode, calling "
                      "`set_error_if` will cause implicit communication between devices. To "
                      "avoid this, consider converting the mesh axis in auto mode to explicit "
                      "mode.", RuntimeWarning, stacklevel=2)
    failed = jnp.any(pred)
    code = ref[...]
    ref[...] = jnp.where(jnp.logical_and(code == np.uint32(_NO_ERROR), failed), new_code, code)


def raise_if_error() -> None:
    """Raise the error the state holds (a JaxValueError with its message and the traceback of
    its `set_error_if`) and clear it; nothing if no check failed. Not inside a traced
    function: the state's value is only known after the program ran."""
    ref = _error_storage.ref
    if ref is None:
        return
    code = ref[...].min()
    if isinstance(code, Tracer):
        raise ValueError("raise_if_error() should not be called within a traced context, such "
                         "as within a jitted function.")
    code = int(code)
    if code == _NO_ERROR:
        return
    ref[...] = jnp.full(ref.shape, np.uint32(_NO_ERROR), dtype=np.uint32)
    with _error_list_lock:
        msg, tb = _error_list[code] if code < len(_error_list) else (_INVALID_CODE, _NO_TRACE)
    if isinstance(tb, str):         # an imported function's: its traceback as text
        raise JaxValueError(f"{msg}\nThe original traceback is shown below:\n{tb}")
    raise JaxValueError(msg).with_traceback(tb)


# JAX's words for a code no check set (an AOT-imported function's data corrupted)
_INVALID_CODE = ("An unknown error occurred during execution of an AOT-imported function. This "
                 "may indicate data corruption during AOT serialization/deserialization, or a "
                 "version mismatch between the exporting and importing JAX versions.")
_NO_TRACE = "Traceback not available for corrupted error codes."


@dataclasses.dataclass(frozen=True)
class _ErrorClass:
    """What a function wrapped by `wrap_for_export` returns beside its results: its own error
    code (an array: a pytree leaf, at `.error_code` in its key path, as JAX's dataclass) and
    its checks' (message, traceback text) pairs (static)."""
    error_code: object
    error_list: list


# (its serialization, as JAX's, is registered by export/_serialization.py, above this layer)
register_dataclass(_ErrorClass, data_fields=("error_code",), meta_fields=("error_list",))


def wrap_for_export(f):
    """`f` with an error state of its own, for jax.export: the wrapped function returns
    `(f's results, _ErrorClass)`, its checks' code and messages, which `unwrap_from_import`
    merges into the importing process's state."""
    def inner(*args, **kwargs):
        global _error_list
        outer_ref = _error_storage.ref
        _initialize_error_code_ref(traced=True)
        with _error_list_lock:
            outer_list, _error_list = _error_list, []
            try:
                out = f(*args, **kwargs)
                code = _error_storage.ref[...].min()
            finally:
                _error_list, own_list = outer_list, _error_list
                _error_storage.ref = outer_ref
        texts = [(msg, "".join(traceback.format_list(traceback.extract_tb(tb))).rstrip("\n"))
                 for msg, tb in own_list]
        return out, _ErrorClass(code, texts)
    return inner


def unwrap_from_import(f):
    """The imported function of `wrap_for_export`'s: its results alone, its error code merged
    into this process's state (the first error stays; its messages join the list)."""
    if _error_storage.ref is None:
        _initialize_error_code_ref()

    def inner(*args, **kwargs):
        out, errors = f(*args, **kwargs)
        with _error_list_lock:
            offset = len(_error_list)
            _error_list.extend(errors.error_list)
        ref = _error_storage.ref
        code = ref[...]
        take = jnp.logical_and(code == np.uint32(_NO_ERROR),
                               errors.error_code != np.uint32(_NO_ERROR))
        ref[...] = jnp.where(take, errors.error_code + np.uint32(offset), code)
        return out
    return inner
