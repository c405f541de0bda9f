"""A tracer used after its trace finished (an *escaped* tracer), in JAX's words.

Trace.to_tracer and eager dispatch raise it; the leak checker (`leaks.py`) finds the holder
before that happens, when it is on.
"""
from __future__ import annotations

from .. import errors
from ..config import config
from ..errors import jax_class_name


def escaped_tracer_error(tracer) -> errors.UnexpectedTracerError:
    """JAX's UnexpectedTracerError for `tracer` used after its trace ended, in JAX's words:
    the value's type and tracer class, the function traced when it leaked, and its line."""
    trace = tracer._trace
    aval = tracer.aval
    kind = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]" \
        if hasattr(aval, "shape") and hasattr(aval, "dtype") else str(aval)
    lines = [f"Encountered an unexpected tracer. A function transformed by JAX had a side "
             f"effect, allowing for a reference to an intermediate value with type {kind} "
             f"wrapped in a {jax_class_name(type(tracer))} to escape the scope of the "
             f"transformation.",
             "JAX transformations require that functions explicitly return their outputs, "
             "and disallow saving intermediate values to global state."]
    info = getattr(trace, "debug_info", None)
    if info is not None and info.source is not None:       # (JAX: a jit's trace says this)
        lines.append(f"The function being traced when the value leaked was {info.fun_name} "
                     f"at {info.source.file}:{info.source.line} traced for "
                     f"{info.transformation}.")
    count = config.jax_tracer_error_num_traceback_frames
    frames = getattr(trace, "describe_creation", lambda t, n: [])(tracer, max(count, 1))
    if frames:
        rule = "-" * 30
        lines += [rule, f"The leaked intermediate value was created on line {frames[-1]}. ",
                  rule]
        if count > 0:           # (JAX: 0 or less lists no frames, only the line above)
            lines += [f"When the value was created, the final {count} stack frames (most "
                      "recent last) excluding JAX-internal frames were:", rule, *frames, rule]
        lines.append("")
    lines += ["To catch the leak earlier, try setting the environment variable "
              "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager."]
    error = errors.UnexpectedTracerError("\n".join(lines))      # (its class adds the link)
    error.provenance = errors.provenance(tracer)        # for the notebook's error card
    return error
