"""Host callbacks: Python functions called from compiled programs.

Three primitives, as in JAX:

- `debug_callback` (jax.debug.callback): a side effect with no results. XLA must not drop
  it (the custom call is marked `has_side_effect`), and there is no DCE of jaxprs here.
- `debug_print` (jax.debug.print): the same, with the formatting done on the host.
- `pure_callback` (jax.pure_callback): results of declared shapes/dtypes; XLA may drop it
  when they are unused, as it does any pure op.

Eagerly the Python function is called at once. Compiled, each call becomes a
`stablehlo.custom_call @xla_ffi_python_cpu_callback` (on a CUDA GPU
`@xla_ffi_python_gpu_callback`, whose handler the CUDA plugin provides and which copies the
operands to the host and the results back, as JAX's) whose `index` picks the function in the
module's `host_callbacks`, which the compiler hands to XLA with the program.

The function receives jxkernel Arrays (on the CPU) and may return anything array-like;
results are checked against the declared types in Python, because XLA would silently
turn a wrong dtype into zeros.

    >>> f = jax.jit(lambda x: pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
    >>> f(jnp.zeros(2))
    Array([0., 0.], dtype=float32)
"""
from __future__ import annotations

import dataclasses
import logging
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.source_info import staged_line
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    batching_rules,
    effect_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_rules,
    side_effecting,
    transpose_rules,
)
from ..tree_util import tree_flatten, tree_leaves, tree_unflatten
from ..xla import client as _client
from ..xla import stablehlo as hlo
from ..xla.array import Array, host_to_device
from ..xla.host_values import to_numpy
from ..xla.transfers import put_on_device
from ..xla import compiler as _compiler
from ..xla import gpu_solver as _gpu_solver
from ..xla import numpy_sharded
from ..xla.compiler import CallbackError, record_callback_error
from ..xla.dispatch import to_device
from ..xla.ffi import layout, row_major
from ..transforms import batch_util as bu
from . import shapes, slicing
from ..xla.lowering import TOKEN, effect_token
from .scan import scan
from .io_effects import io_effect, ordered_io_effect


# ------------------------------------------------------------------ effects
class DebugEffect:
    """The effect of an unordered debug callback (printed `effect=Debug`)."""
    __slots__ = ()

    def __repr__(self):
        return "Debug"

    __str__ = __repr__


class OrderedDebugEffect(DebugEffect):
    """The effect of `ordered=True` debug callbacks (printed `effect=OrderedDebug`)."""
    __slots__ = ()

    def __repr__(self):
        return "OrderedDebug"

    __str__ = __repr__


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()


# ------------------------------------------------------------------ host side
def _cpu_device():
    # the host's device: XLA's CPU, or the NumPy backend's one where that is the backend
    return _client.get_backend("numpy" if _client.default_backend() == "numpy" else
                               "cpu").devices[0]


def _as_arrays(values) -> list:
    """XLA's NumPy views of the operands as Arrays on the CPU (copies: the views die with
    the call). JAX hands callbacks jax.Arrays too."""
    device = _cpu_device()
    return [host_to_device(np.asarray(v), ShapedArray(np.shape(v), np.asarray(v).dtype), device)
            for v in values]


def _to_cpu(values) -> list:
    """Eager operands (Arrays, NumPy data, Python scalars, weak literals) as Arrays."""
    device = _cpu_device()
    return [v if type(v) is Array and v._sharding is None and v.device == device else
            to_device(v, device)
            for v in values]


def _describe(fn) -> str:
    fn = getattr(fn, "callback_func", fn)
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _check_results(outs, result_avals, fn, kind="jax.pure_callback") -> tuple:
    """The callback's flat results as NumPy arrays of exactly `result_avals`' types."""
    outs = list(outs)
    if len(outs) != len(result_avals):
        raise CallbackError(
            f"The callback {_describe(fn)} passed to {kind} returned {len(outs)} "
            f"value(s), but result_shape_dtypes declares {len(result_avals)}. Return one array "
            f"per leaf of result_shape_dtypes.")
    checked = []
    for i, (out, aval) in enumerate(zip(outs, result_avals)):
        value = to_numpy(out)                   # Python scalars, lists, Arrays; 64 -> 32 bits
        if value.shape != aval.shape or value.dtype != aval.dtype:
            raise CallbackError(
                f"The callback {_describe(fn)} passed to {kind} returned "
                f"{value.dtype.name}{list(value.shape)} for result {i}, but result_shape_dtypes "
                f"declares {aval.dtype.name}{list(aval.shape)}. Return arrays of the declared "
                f"shapes and dtypes (e.g. np.asarray(out, dtype=...)), or fix the declaration.")
        # C order, as the result layout says (not np.ascontiguousarray: it makes 0-d 1-d)
        checked.append(value if value.flags.c_contiguous else np.array(value, order="C"))
    return tuple(checked)


# the API a failing callback is logged under, as JAX 0.10.2 logs it ("jax.io_callback
# failed"), by this module's name for the kind (debug.print's runs as a debug.callback), and
# JAX's logger for it: libraries filter those by name (Equinox's filter_jit drops "jax.pure_callback
# failed" from "jax._src.callback", its error_if raising through a pure_callback)
_LOGGED_AS = {"jax.pure_callback": ("jax.pure_callback", "jax._src.callback"),
              "io_callback": ("jax.io_callback", "jax._src.callback"),
              "jax.debug.callback": ("jax.debug.callback", "jax._src.debugging"),
              "jax.debug.print": ("jax.debug.callback", "jax._src.debugging")}
CALLBACK_LOGGERS = ("jax._src.callback", "jax._src.debugging")


def _log_failure(kind: str) -> None:
    """Log the exception being handled as JAX does when a host callback raises: at ERROR, with
    its traceback, before it reaches the program's caller."""
    if kind in _LOGGED_AS:
        api, logger = _LOGGED_AS[kind]
        logging.getLogger(logger).exception("%s failed", api)


def _host_function(kind, fn, result_avals=None, numpy_in=False):
    """The function XLA calls: NumPy in, a tuple of NumPy out; `fn` gets Arrays on the CPU,
    or with `numpy_in` NumPy copies. An error is recorded, so the program's caller raises it
    with the user's traceback (XLA keeps only its text)."""
    def call_from_xla(*values):
        try:
            args = [np.array(v) for v in values] if numpy_in else _as_arrays(values)
            if result_avals is None:
                fn(*args)
                return ()
            return _check_results(fn(*args), result_avals, fn, kind)
        except BaseException as e:
            if isinstance(e, CallbackError):
                record_callback_error(e)
            else:
                _log_failure(kind)
                err = CallbackError(f"The callback {_describe(fn)} passed to {kind} raised "
                                    f"{type(e).__name__}: {e} (its traceback is above)")
                err.__cause__ = e
                # the user's line that staged it (a card fixes that line, not the call's)
                err.staged_at = call_from_xla.staged_at
                record_callback_error(err)
            raise
    call_from_xla.staged_at = None      # emit_host_callback writes the equation's line
    return call_from_xla


# ------------------------------------------------------------------ lowering
def _layouts(avals) -> str:
    """Row-major, the layout the host function expects."""
    return "[" + ", ".join(layout(row_major(len(a.shape))) for a in avals) + "]"


# The custom call each backend runs a Python function with (JAX's mlir.emit_python_callback:
# "xla_ffi_python_{cpu,gpu}_callback"); "gpu" is the CUDA backend, as jxkernel names it
_CALLBACK_TARGETS = {"cpu": _compiler.HOST_CALLBACK_TARGETS[0],
                     "gpu": _compiler.HOST_CALLBACK_TARGETS[1]}
_PARTITIONED_TARGETS = {"cpu": _compiler.HOST_CALLBACK_TARGETS[2],
                        "gpu": _compiler.HOST_CALLBACK_TARGETS[3]}


def emit_host_callback(ctx, host_fn, operands, result_avals, *, has_side_effect, what,
                       operand_avals=None, ordered=False, sharding=None, partitioned=False):
    """Emit the custom call that runs `host_fn` on the host; returns its result values.
    `operand_avals`: the operands' types, where they are not the equation's inputs; `ordered`:
    threaded by its block's effect token (`_lowering.effect_token`), as JAX's ordered calls.
    In a module partitioned over a mesh the call runs once, on one device (`_maximal`), or
    with `partitioned` (no results) once per device on its own blocks of the operands (jaxlib's
    partitioner of that target splits it, as JAX's)."""
    if hasattr(host_fn, "staged_at"):          # (a _host_function's)
        host_fn.staged_at = staged_line(ctx.source_info)
    if ordered:
        return _emit_ordered(ctx, host_fn, operands, result_avals, what, operand_avals,
                             sharding)
    target = (_PARTITIONED_TARGETS if partitioned else _CALLBACK_TARGETS).get(ctx.platform)
    if target is None:
        raise NotImplementedError(
            f"{what} inside a compiled function is implemented on the CPU and CUDA GPUs; this "
            f"program is being compiled for the {ctx.platform!r} backend. Run it on the CPU "
            f"(jit(..., backend='cpu'), or device_put the inputs on jxkernel.devices('cpu')[0]).")
    if ctx.platform == "gpu":
        # the CUDA plugin's handler of the target, registered with XLA once per process
        # (nothing to register where no plugin is loaded: the module can be printed, not run)
        _gpu_solver.ensure_registered()
    callbacks = ctx.module_ctx.host_callbacks
    callbacks.append(host_fn)
    attrs = {"call_target_name": f'"{target}"',
             "has_side_effect": "true" if has_side_effect else "false",
             "mhlo.backend_config": f"{{index = {len(callbacks) - 1} : ui64}}",
             "operand_layouts": _layouts(ctx.avals_in if operand_avals is None else
                                         operand_avals),
             "result_layouts": _layouts(result_avals)}
    maximal = _maximal(ctx, sharding, len(result_avals) + isinstance(ctx, _TokenTyped), what)
    if maximal is not None:
        attrs["sdy.sharding"] = maximal
    return ctx.op("stablehlo.custom_call", operands, attrs,
                  result_types=[hlo.aval_type(a) for a in result_avals])


def _maximal(ctx, sharding, n_results: int, what: str):
    """The sharding of a host call in a module partitioned over a mesh (outside shard_map's
    manual bodies), as JAX's with Shardy: the whole call on one device, the first of the
    module's devices or the one of `sharding` (a single device's), a maximal mesh of that
    device declared beside the module's mesh: `#sdy.sharding_per_value<[<@maximal_mesh_1,
    []>]>`, once per result (once where it has none). None elsewhere."""
    module_ctx = ctx.module_ctx
    if module_ctx.mesh is None or module_ctx.manual is not None:
        return None
    assignment = list(module_ctx.devices) or list(module_ctx.mesh.devices.flat)
    index = 0
    if sharding is not None:
        device_set = sharding.device_set
        if len(device_set) != 1:
            raise NotImplementedError(f"{what.removeprefix('jax.')} only supports "
                                      f"SingleDeviceSharding, but got {type(sharding)}")
        device = next(iter(device_set))
        if device not in assignment:
            raise ValueError(f"Sharding provided to {what.removeprefix('jax.')} specifies a "
                             f"device {device} that is not in the device assignment "
                             f"({assignment})")
        index = assignment.index(device)
    symbols = ctx.module_ctx.module.symbols
    line = (f"sdy.mesh @maximal_mesh_{index} = <[], device_ids=[{index}]> {{stablehlo.mesh = "
            f"{{axes = [], device_ids = dense<{index}> : tensor<1xi64>}}}}")
    if line not in symbols:
        symbols.append(line)
    each = f"<@maximal_mesh_{index}, []>"
    return f"#sdy.sharding_per_value<[{', '.join([each] * max(1, n_results))}]>"


def _emit_ordered(ctx, host_fn, operands, result_avals, what, operand_avals, sharding=None,
                  token=None):
    """The call taking the block's token first and giving the next one first (JAX's
    emit_python_callback with a token: the host function passes it through); given a
    `token` (a library rule's), it takes that one and returns the next one first."""
    def with_token(token, *values):
        return (token, *host_fn(*values))
    avals = list(ctx.avals_in if operand_avals is None else operand_avals)
    ordered_ctx = _TokenTyped(ctx, [hlo.aval_type(a) for a in result_avals])
    outs = emit_host_callback(ordered_ctx, with_token,
                              [effect_token(ctx) if token is None else token, *operands],
                              result_avals, has_side_effect=True, what=what,
                              operand_avals=avals, sharding=sharding)
    if token is not None:
        return outs
    ctx.block.effect_token = outs[0]
    return outs[1:]


class _TokenTyped:
    """`ctx` emitting a token result before the others, with the token's layout first."""

    def __init__(self, ctx, result_types):
        self._ctx, self._types = ctx, result_types

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def op(self, name, operands, attrs=None, regions=(), result_types=None):
        attrs = dict(attrs)
        for key in ("operand_layouts", "result_layouts"):
            inner = attrs[key][1:-1]
            attrs[key] = f"[{layout(row_major(0))}{', ' if inner else ''}{inner}]"
        return self._ctx.op(name, operands, attrs, regions, [TOKEN, *self._types])


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect, returns_token=True, partitioned=False, sharding=None):
    """JAX's `mlir.emit_python_callback`, for a lowering rule of one's own: emit a call of
    `callback` on the host, with NumPy copies of `operands` (values of this rule, of types
    `operand_avals`), returning arrays of `result_avals`. Returns (results, token, the host
    function to keep alive). Equinox's `noinline` lowers its primitive with it.

    >>> from jxkernel.extend.core import Primitive
    >>> from jxkernel.interpreters import mlir
    >>> p = Primitive("host_twice_doc")
    >>> _ = p.def_abstract_eval(lambda x: x)
    >>> def rule(ctx, x):
    ...     outs, _, keep = emit_python_callback(ctx, lambda v: (2 * v,), None, [x],
    ...                                          ctx.avals_in, ctx.avals_out, has_side_effect=False)
    ...     ctx.module_context.add_keepalive(keep)
    ...     return outs
    >>> mlir.register_lowering(p, rule)
    >>> jax.jit(p.bind)(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    if partitioned and result_avals:
        raise ValueError("Partitioned callback not supported with return values.")
    if sharding is not None:
        raise NotImplementedError(
            f"emit_python_callback: sharding={sharding!r} is not supported by jxkernel (its "
            f"host callbacks run in single-device programs); pass sharding=None")
    result_avals = tuple(result_avals)
    host_fn = _host_function("emit_python_callback", _NumpyCallback(callback, result_avals),
                             result_avals, numpy_in=True)
    if token is not None:       # an ordered effect's (ctx.tokens_in): the call passes it on
        results = _emit_ordered(ctx, host_fn, list(operands), result_avals,
                                "emit_python_callback", list(operand_avals), token=token)
        return results[1:], results[0], host_fn
    results = emit_host_callback(ctx, host_fn, list(operands), result_avals,
                                 has_side_effect=has_side_effect, what="emit_python_callback",
                                 operand_avals=list(operand_avals))
    return results, None, host_fn


class _NumpyCallback:
    """A raw host callback as JAX's emit_python_callback wraps it: NumPy in; its results
    made NumPy of the canonical dtypes, their number, shapes and dtypes checked (JAX's
    RuntimeErrors)."""

    def __init__(self, callback, result_avals):
        self.callback, self.result_avals = callback, result_avals
        self.__qualname__ = _describe(callback)

    def __call__(self, *args):
        outs = self.callback(*args)
        if len(outs) != len(self.result_avals):
            raise RuntimeError(f"Mismatched number of outputs from callback. Expected: "
                               f"{len(self.result_avals)}, Actual: {len(outs)}")
        outs = [np.asarray(a) for a in outs]
        outs = [a.astype(dtypes.canonicalize_dtype(a.dtype), copy=False) for a in outs]
        for i, (out, aval) in enumerate(zip(outs, self.result_avals)):
            if out.shape != aval.shape:
                raise RuntimeError(f"Incorrect output shape for return value #{i}: Expected: "
                                   f"{aval.shape}, Actual: {out.shape}")
            if out.dtype != aval.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: Expected: "
                                   f"{aval.dtype}, Actual: {out.dtype}")
        return outs


# ------------------------------------------------------------------ shared rules
def _no_results(*avals, **params):
    return []


def _debug_jvp(prim):
    """Prints (calls back with) the primal values; tangents are ignored, as in JAX."""
    def rule(primals, tangents, **params):
        return prim.bind(*primals, **params), []
    return rule


def _debug_transpose(cts, *args, **params):
    return [None] * len(args)


def _unrolled_batcher(prim):
    """vmap of a debug callback: one call per batch element, in order (as JAX does)."""

    def rule(vals, dims, **params):
        size = bu.axis_size_of(vals, dims)
        for i in range(size):
            prim.bind(*[x if d is bu.not_mapped else slicing.index_in_dim(x, i, d, False)
                        for x, d in zip(vals, dims)], **params)
        return [], []
    return rule


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


def _masked(value) -> str:
    """str(value) with object addresses hidden, as JAX prints params."""
    return _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), str(value))


# ------------------------------------------------------------------ debug_callback
debug_callback_p = Primitive("debug_callback", multiple_results=True)


def _debug_callback_impl(*args, callback, effect, partitioned):
    try:
        callback(*_to_cpu(args))
    except BaseException:
        _log_failure("jax.debug.callback")
        raise
    return []


def _as_host_call(api: str, fn, args) -> None:
    """fn(*args) on the NumPy backend as XLA's host call runs it: its error reaches the
    program's caller as a CallbackError (the callback's own exception its cause; a SystemExit
    too, as the debugger's `q` raises: XLA's host call wraps it alike)."""
    try:
        fn(*args)
    except CallbackError:
        raise
    except BaseException as e:
        _log_failure(api)
        raise CallbackError(f"The callback {_describe(fn)} passed to {api} raised "
                            f"{type(e).__name__}: {e} (its traceback is above)") from e


def _debug_callback_numpy(*args, callback, effect, partitioned):
    """As XLA's host call: the callback gets Arrays; its error is a CallbackError."""
    _as_host_call("jax.debug.callback", callback, _as_arrays(args))
    return []


def _debug_callback_lowering(ctx, *args, callback, effect, partitioned):
    host_fn = _host_function("jax.debug.callback", callback)
    # ordered=True: threaded by the effect token, so the calls keep program order (XLA's CPU
    # runtime may otherwise run two side-effecting calls in either order)
    return emit_host_callback(ctx, host_fn, args, [], has_side_effect=True,
                              what="jax.debug.callback", partitioned=partitioned,
                              ordered=effect is ordered_debug_effect)


abstract_eval_rules[debug_callback_p] = _no_results
impl_rules[debug_callback_p] = _debug_callback_impl
numpy_rules[debug_callback_p] = _debug_callback_numpy
lowering_rules[debug_callback_p] = _debug_callback_lowering
jvp_rules[debug_callback_p] = _debug_jvp(debug_callback_p)
transpose_rules[debug_callback_p] = _debug_transpose
batching_rules[debug_callback_p] = _unrolled_batcher(debug_callback_p)
param_printers[debug_callback_p] = lambda p: [
    ("callback", _masked(p["callback"])), ("effect", p["effect"]),
    ("partitioned", p["partitioned"])]


# ------------------------------------------------------------------ debug_print
debug_print_p = Primitive("debug_print", multiple_results=True)


def merge_static(in_tree, dyn_args, static_args):
    """(args, kwargs) rebuilt from the traced leaves and the static ones (by leaf index)."""
    static = dict(static_args)
    dyn = iter(dyn_args)
    leaves = [static[i] if i in static else next(dyn)
              for i in range(len(static) + len(dyn_args))]
    return tree_unflatten(in_tree, leaves)


def format_print(fmt, np_printoptions, has_placeholders, logging_record, *args, **kwargs):
    """Write one debug.print line: `fmt.format(...)` under the NumPy print options seen when
    it was traced. A format without placeholders has the values appended, space-separated."""
    if has_placeholders:
        with np.printoptions(**dict(np_printoptions)):
            message = fmt.format(*args, **kwargs)
    else:
        message = " ".join((fmt, *map(str, args)))
    if logging_record is not None:
        import copy
        import logging
        record = copy.copy(logging_record)
        record.msg = message
        logging.getLogger(record.name).handle(record)
        return
    # flushed: the text should be out before the program (or the cell) goes on
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


def _print_function(fmt, has_placeholders, in_tree, static_args, np_printoptions,
                    logging_record):
    def print_values(*dyn_args):
        args, kwargs = merge_static(in_tree, dyn_args, static_args)
        format_print(fmt, np_printoptions, has_placeholders, logging_record, *args, **kwargs)
    print_values.__qualname__ = f"debug.print({fmt!r})"
    return print_values


def _debug_print_impl(*args, fmt, ordered, partitioned, in_tree, static_args, np_printoptions,
                      has_placeholders, logging_record):
    _print_function(fmt, has_placeholders, in_tree, static_args, np_printoptions,
                    logging_record)(*_to_cpu(args))
    return []


def _debug_print_lowering(ctx, *args, fmt, ordered, partitioned, in_tree, static_args,
                          np_printoptions, has_placeholders, logging_record):
    fn = _print_function(fmt, has_placeholders, in_tree, static_args, np_printoptions,
                         logging_record)
    return emit_host_callback(ctx, _host_function("jax.debug.print", fn), args, [],
                              has_side_effect=True, what="jax.debug.print", ordered=ordered,
                              partitioned=partitioned)


abstract_eval_rules[debug_print_p] = _no_results
impl_rules[debug_print_p] = _debug_print_impl


def _debug_print_numpy(*args, fmt, ordered, partitioned, in_tree, static_args, np_printoptions,
                       has_placeholders, logging_record):
    # Arrays, as XLA's host call hands them (a pytree's values print as `Array(2, ...)`), and
    # a failure (a format spec a vector has not) a CallbackError, as XLA's host call raises it
    _as_host_call("jax.debug.print", _print_function(
        fmt, has_placeholders, in_tree, static_args, np_printoptions, logging_record),
        _as_arrays(args))
    return []


numpy_rules[debug_print_p] = _debug_print_numpy


class _PerDevice:
    """A host function called once per device with its blocks of the operands (`blocks`:
    numpy_sharded.per_device_calls), as XLA's partitioned host call calls it."""

    def __init__(self, function, blocks):
        self.function, self.blocks = function, blocks

    def __call__(self, *arrays):
        for blocks in self.blocks([np.asarray(a) for a in arrays]):
            self.function(*_as_arrays(blocks))

    def __repr__(self):
        return repr(self.function)


def _debug_callback_per_device(eqn, blocks):
    return eqn.replace(params=dict(eqn.params, callback=_PerDevice(eqn.params["callback"],
                                                                   blocks)))


def _debug_print_per_device(eqn, blocks):
    p = eqn.params
    function = _print_function(p["fmt"], p["has_placeholders"], p["in_tree"], p["static_args"],
                               p["np_printoptions"], p["logging_record"])
    return eqn.replace(primitive=debug_callback_p, params=dict(
        callback=_PerDevice(function, blocks), partitioned=True,
        effect=ordered_debug_effect if p["ordered"] else debug_effect))


numpy_sharded.per_device_rules[debug_callback_p] = _debug_callback_per_device
numpy_sharded.per_device_rules[debug_print_p] = _debug_print_per_device
lowering_rules[debug_print_p] = _debug_print_lowering
jvp_rules[debug_print_p] = _debug_jvp(debug_print_p)
transpose_rules[debug_print_p] = _debug_transpose
batching_rules[debug_print_p] = _unrolled_batcher(debug_print_p)


# ------------------------------------------------------------------ pure_callback
@dataclasses.dataclass(frozen=True)
class _FlatCallback:
    """The user's function over flat leaves. Equal for the same function and argument
    structure, so retracing gives equal params (and cache hits)."""
    callback_func: Callable[..., Any]
    in_tree: Any

    def __call__(self, *flat_args):
        args, kwargs = tree_unflatten(self.in_tree, flat_args)
        return tree_leaves(self.callback_func(*args, **kwargs))


pure_callback_p = Primitive("pure_callback", multiple_results=True)


def _declared_results(*avals, result_avals, **params):
    """Abstract eval of a host callback: the results it declared."""
    return list(result_avals)


def _host_callback_rules(kind: str, has_side_effect: bool) -> tuple:
    """(impl, lowering, numpy) of a host callback primitive (pure_callback, io_callback):
    eagerly, call it on host copies of the arguments; compiled, emit a call back into Python
    (one that XLA must keep even when its results are unused when it has a side effect); with
    NumPy, call it on Arrays of the operands, as the compiled call does."""
    def call(args, callback, result_avals):
        # a failure is JAX's JaxRuntimeError (JAX runs the primitive through XLA), the
        # callback's own exception its cause
        try:
            return _check_results(callback(*args), result_avals, callback, kind)
        except CallbackError:
            raise
        except Exception as e:
            _log_failure(kind)
            raise CallbackError(f"The callback {_describe(callback)} passed to {kind} raised "
                                f"{type(e).__name__}: {e} (its traceback is above)") from e

    def impl(*args, callback, result_avals, **params):
        return [put_on_device(o) for o in call(_to_cpu(args), callback, result_avals)]

    def lowering(ctx, *args, callback, result_avals, **params):
        host_fn = _host_function(kind, callback, tuple(result_avals))
        return emit_host_callback(ctx, host_fn, args, result_avals,
                                  has_side_effect=has_side_effect, what=kind,
                                  ordered=bool(params.get("ordered")),
                                  sharding=params.get("sharding"))

    def numpy(*args, callback, result_avals, **params):
        return list(call(_as_arrays(args), callback, result_avals))     # (Arrays, as XLA's)
    return impl, lowering, numpy


_pure_callback_impl, _pure_callback_lowering, _pure_callback_numpy = _host_callback_rules(
    "jax.pure_callback", False)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")


def _pure_callback_transpose(cts, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` to "
                     "use callbacks while taking gradients.")


_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized")


def _pure_callback_batching(vals, dims, *, callback, result_avals, sharding, vmap_method):
    size = bu.axis_size_of(vals, dims)
    front = [x if d is bu.not_mapped else bu.moveaxis(x, d, 0) for x, d in zip(vals, dims)]
    batched_avals = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in result_avals)
    params = {"callback": callback, "sharding": sharding, "vmap_method": vmap_method}
    if vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        args = [shapes.broadcast(x, (n,)) if d is bu.not_mapped else x
                for x, d in zip(front, dims)]
        outs = pure_callback_p.bind(*args, result_avals=batched_avals, **params)
    elif vmap_method == "legacy_vectorized":
        outs = pure_callback_p.bind(*front, result_avals=batched_avals, **params)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        outs = _scan_each(pure_callback_p, front, dims, vmap_method == "sequential_unrolled",
                          result_avals=result_avals, **params)
    else:
        raise NotImplementedError(
            f"vmap is only supported for the pure_callback primitive when vmap_method is one "
            f"of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    return list(outs), [0] * len(outs)


def _scan_each(prim, front, dims, unroll, **params) -> list:
    """vmap of a callback as a scan binding `prim` once per element (batch axes in front)."""
    mapped = [d is not bu.not_mapped for d in dims]
    fixed = [x for x, m in zip(front, mapped) if not m]

    def body(carry, xs):
        it_fixed, it_xs = iter(fixed), iter(xs)
        args = [next(it_xs) if m else next(it_fixed) for m in mapped]
        return carry, prim.bind(*args, **params)
    xs = [x for x, m in zip(front, mapped) if m]
    return list(scan(body, (), xs, unroll=unroll)[1])


def _jax_aval_text(aval) -> str:
    return f"ShapedArray({aval.dtype.name}[{','.join(map(str, aval.shape))}])"


def _tuple_text(items) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


abstract_eval_rules[pure_callback_p] = _declared_results
impl_rules[pure_callback_p] = _pure_callback_impl
numpy_rules[pure_callback_p] = _pure_callback_numpy
lowering_rules[pure_callback_p] = _pure_callback_lowering
jvp_rules[pure_callback_p] = _pure_callback_jvp
transpose_rules[pure_callback_p] = _pure_callback_transpose
batching_rules[pure_callback_p] = _pure_callback_batching
param_printers[pure_callback_p] = lambda p: [
    ("callback", _masked(p["callback"])),
    ("result_avals", _tuple_text([_jax_aval_text(a) for a in p["result_avals"]])),
    ("sharding", p["sharding"]), ("vmap_method", p["vmap_method"])]


# ------------------------------------------------------------------ user-facing
def split_callback_args(args, kwargs):
    """(in_tree, traced leaves, {leaf index: static leaf}): leaves that are not arrays
    (strings, functions, ...) go to the host function as they are."""
    leaves, in_tree = tree_flatten((args, kwargs))
    dyn, static = [], {}
    for i, leaf in enumerate(leaves):
        try:
            get_aval(leaf)
            dyn.append(leaf)
        except TypeError:
            static[i] = leaf
    return in_tree, dyn, static


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call the pure Python function `callback` (under jit/vmap too); its results must
    match `result_shape_dtypes` (a pytree of objects with .shape and .dtype).

    >>> pure_callback(np.sin, jax.ShapeDtypeStruct((2,), np.float32), jnp.zeros(2))
    Array([0., 0.], dtype=float32)

    `vmap_method`: how vmap calls it: "sequential" (once per element, in a scan),
    "sequential_unrolled", "expand_dims" (unbatched inputs get a leading axis of 1),
    "broadcast_all" (of the batch size), or "legacy_vectorized"; None refuses vmap.
    Not differentiable: wrap it in custom_jvp/custom_vjp.
    """
    allowed = list(_VMAP_METHODS[:4]) + ["legacy_vectorized", None]
    if vmap_method not in allowed:
        raise ValueError(f"vmap_method must be on of the allowed methods {allowed}, but got: "
                         f"{vmap_method}")
    return _bind_callback(pure_callback_p, "pure_callback", callback, result_shape_dtypes, args,
                          kwargs, sharding=sharding, vmap_method=vmap_method)


def _bind_callback(prim, name, callback, result_shape_dtypes, args, kwargs, **params):
    """pure_callback's and io_callback's call: `callback` checked, bound over the flat
    arguments with the declared results' avals, the results put back in their tree."""
    if not callable(callback):
        raise TypeError(f"{name}'s first argument must be callable; got "
                        f"{type(callback).__name__}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    shapes_flat, out_tree = tree_flatten(result_shape_dtypes)
    outs = prim.bind(*flat_args, callback=_FlatCallback(callback, in_tree),
                     result_avals=_result_avals(shapes_flat), **params)
    return tree_unflatten(out_tree, outs)


def _result_avals(shapes_flat) -> tuple:
    """The declared results (objects with .shape and .dtype) as avals; 64-bit types need x64."""
    result_avals = []
    for s in shapes_flat:
        dtype = np.dtype(s.dtype)
        if dtypes.canonicalize_dtype(dtype) != dtype:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                             "`jax_enable_x64` is disabled")
        result_avals.append(ShapedArray(tuple(s.shape), dtype))
    return tuple(result_avals)


# ------------------------------------------------------------------ io_callback
io_callback_p = Primitive("io_callback", multiple_results=True)
side_effecting.add(io_callback_p)       # runs even when nothing reads its results


_io_callback_impl, _io_callback_lowering, _io_callback_numpy = _host_callback_rules(
    "io_callback", True)


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_transpose(cts, *args, **params):
    raise ValueError("IO callbacks do not support transpose.")


def _io_callback_batching(vals, dims, *, ordered, **params):
    """Once per element, in order (a scan), as JAX does; ordered ones refuse vmap."""
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    front = [x if d is bu.not_mapped else bu.moveaxis(x, d, 0) for x, d in zip(vals, dims)]
    outs = _scan_each(io_callback_p, front, dims, False, ordered=False, **params)
    return outs, [0] * len(outs)


abstract_eval_rules[io_callback_p] = _declared_results
impl_rules[io_callback_p] = _io_callback_impl
numpy_rules[io_callback_p] = _io_callback_numpy
lowering_rules[io_callback_p] = _io_callback_lowering
jvp_rules[io_callback_p] = _io_callback_jvp
transpose_rules[io_callback_p] = _io_callback_transpose
batching_rules[io_callback_p] = _io_callback_batching
effect_rules[io_callback_p] = lambda p: frozenset(
    {ordered_io_effect if p["ordered"] else io_effect})
param_printers[io_callback_p] = lambda p: [
    ("callback", _masked(p["callback"])), ("ordered", p["ordered"]),
    ("result_avals", _tuple_text([_jax_aval_text(a) for a in p["result_avals"]])),
    ("sharding", p["sharding"])]


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Call `callback`, a Python function with side effects (I/O, state), from traced code;
    it runs even when its results are unused. Results must match `result_shape_dtypes` (a
    pytree of objects with .shape and .dtype, or None for no results).

    >>> seen = []
    >>> f = jax.jit(lambda x: io_callback(lambda v: seen.append(int(v)), None, x))
    >>> f(3); f(4); seen
    [3, 4]

    `ordered=True` keeps the calls in program order and refuses vmap; vmap of an unordered
    one calls it once per element, in order. Not differentiable.
    """
    return _bind_callback(io_callback_p, "io_callback", callback, result_shape_dtypes, args,
                          kwargs, sharding=sharding, ordered=bool(ordered))
