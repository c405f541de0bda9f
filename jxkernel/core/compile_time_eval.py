"""Operations run on values while a trace is current: JAX's `core.eval_context` and
`ensure_compile_time_eval` (both public as `jax.core.*`; the second also `jax.*`).

    >>> with eval_context():
    ...     bool(jnp.add(1, 1) == 2)
    True
"""
import contextlib

from .trace import Trace, Tracer, _ctx, eval_trace, set_current_trace


def eval_context():
    """A block where operations run on values, not on the trace around it: inside a jitted
    function, `jnp.add(1, 1) == 2` is a bool there (the module's example)."""
    return set_current_trace(eval_trace)


class _CompileTimeEvalTrace(Trace):
    """Runs an operation whose inputs are all concrete at once (on the eval trace), however
    deep in tracing we are; an operation on a tracer goes to the trace that was current."""
    evaluates_concrete = True    # (a custom_jvp/custom_vjp function of concrete values just runs)

    def process_primitive(self, prim, args, params):
        eager = not any(isinstance(x, Tracer) for x in args)
        with set_current_trace(eval_trace if eager else self.parent):
            return prim.bind(*args, **params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """``with ensure_compile_time_eval():`` computes operations on concrete values eagerly even
    while tracing (under jit their results are constants, usable in Python control flow);
    operations on traced values are staged as usual.

        >>> @jax.jit
        ... def f(x):
        ...     with ensure_compile_time_eval():
        ...         y = jnp.sin(2.0)            # a concrete Array, not a tracer
        ...         positive = bool(y > 0)      # (outside the block, y > 0 is traced)
        ...     return x * y if positive else x
        >>> f(1.0)
        Array(0.9092974, dtype=float32, weak_type=True)
    """
    if _ctx.trace is eval_trace:          # not tracing: everything is eager already
        yield
        return
    with set_current_trace(_CompileTimeEvalTrace(_ctx.trace)):
        yield
