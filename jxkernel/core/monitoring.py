"""jax.monitoring: named events, durations and scalars, delivered to registered listeners.

    >>> seen = []
    >>> register_event_duration_secs_listener(lambda event, secs, **kw: seen.append(event))
    >>> _ = jax.jit(lambda x: x * 3)(1.0)        # a compile records its phases
    >>> sorted(set(seen))
    ['/jax/core/compile/backend_compile_duration', '/jax/core/compile/jaxpr_to_mlir_module_duration', '/jax/core/compile/jaxpr_trace_duration']
    >>> clear_event_listeners()

jxkernel records JAX's compile events: for each compilation jit logs (jxkernel.compile_log),
the seconds spent tracing (`/jax/core/compile/jaxpr_trace_duration`), lowering to StableHLO
(`.../jaxpr_to_mlir_module_duration`) and compiling in XLA (`.../backend_compile_duration`),
as a duration and as a time span, with `fun_name`.
"""
from __future__ import annotations

import collections

from . import compile_record as _compile_record

__all__ = ["clear_event_listeners", "record_event", "record_event_duration_secs",
           "record_event_time_span", "record_scalar", "register_event_duration_secs_listener",
           "register_event_listener", "register_event_time_span_listener",
           "register_scalar_listener", "unregister_event_duration_listener",
           "unregister_event_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener"]

JAXPR_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
JAXPR_TO_MLIR_MODULE_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_event_listeners: list = []
_event_duration_secs_listeners: list = []
_event_time_span_listeners: list = []
_scalar_listeners: list = []


# JAX's util.test_event: runtime events its test util counts by difference (jax._src.test_util's
# count_device_put: "batched_device_put", host data put on a device; count_pjit_cpp_cache_miss:
# "jit_cpp_cache_miss", a jit call past every fast path). A Counter, no listeners: the events
# fire on hot paths.
test_event_counts: collections.Counter = collections.Counter()


def test_event(name: str) -> None:
    """Count one `name` event (test_event_counts)."""
    test_event_counts[name] += 1


def record_event(event: str, **kwargs) -> None:
    """Call every event listener with `event` (and `kwargs`, in the same order each time)."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
    """Call every duration listener with `event` and `duration` (seconds)."""
    for callback in list(_event_duration_secs_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float, **kwargs) -> None:
    """Call every time-span listener with `event` and its start and end (time.time())."""
    for callback in list(_event_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value, **kwargs) -> None:
    """Call every scalar listener with `event` and `value`."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback) -> None:
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback) -> None:
    _event_duration_secs_listeners.append(callback)


def register_event_time_span_listener(callback) -> None:
    _event_time_span_listeners.append(callback)


def register_scalar_listener(callback) -> None:
    _scalar_listeners.append(callback)


def _unregister(listeners: list, callback, kind: str) -> None:
    if callback not in listeners:
        raise AssertionError(f"{callback!r} is not a registered {kind} listener")
    listeners.remove(callback)


def unregister_event_listener(callback) -> None:
    _unregister(_event_listeners, callback, "event")


def unregister_event_duration_listener(callback) -> None:
    _unregister(_event_duration_secs_listeners, callback, "event duration")


def unregister_event_time_span_listener(callback) -> None:
    _unregister(_event_time_span_listeners, callback, "event time span")


def unregister_scalar_listener(callback) -> None:
    _unregister(_scalar_listeners, callback, "scalar")


def get_event_listeners() -> list:
    """A copy of the event listeners (JAX's private jax._src.monitoring reads them so)."""
    return list(_event_listeners)


def get_event_duration_listeners() -> list:
    """A copy of the duration listeners."""
    return list(_event_duration_secs_listeners)


def clear_event_listeners() -> None:
    """Remove every listener of every kind."""
    for listeners in (_event_listeners, _event_duration_secs_listeners,
                      _event_time_span_listeners, _scalar_listeners):
        listeners.clear()


def record_compile_phases(fun_name: str, trace_s: float, lower_s: float, compile_s: float,
                          end_time: float) -> None:
    """JAX's three compile events for one compilation that ended at `end_time`."""
    if not (_event_duration_secs_listeners or _event_time_span_listeners):
        return
    start = end_time - trace_s - lower_s - compile_s
    program = fun_name if "(" in fun_name else f"jit({fun_name})"    # JAX's module's name
    for event, secs, name in ((JAXPR_TRACE_EVENT, trace_s, fun_name),
                              (JAXPR_TO_MLIR_MODULE_EVENT, lower_s, program),
                              (BACKEND_COMPILE_EVENT, compile_s, program)):
        record_event_duration_secs(event, secs, fun_name=name)
        record_event_time_span(event, start, start + secs, fun_name=name)
        start += secs


def _on_compile(event) -> None:
    if not event.compiled:       # a retrace inlined into another program: no compilation
        return
    record_compile_phases(event.function, event.trace_s, event.lower_s, event.compile_s,
                          event.timestamp)


# Listeners are registered here, so the compile record needs telling only once this is loaded.
_compile_record.subscribe(_on_compile)
