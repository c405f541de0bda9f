"""The note under a cell whose code printed a tracer: `print(x)` inside a jitted function runs
while it is traced and shows a placeholder (`JitTracer(~float32[])`), not the value, and runs
again only when the function is traced again. A learner expects the value on every call:
`jax.debug.print` does that.

    @jax.jit
    def f(x):
        print("x is", x)      # ⚠ print ran while tracing: it shows JitTracer(~float32[]) ...
        return x + 1
"""
from __future__ import annotations

from ..core import trace
from ..views.source import is_user_file
from .display import Note, source_label


def clear() -> None:
    """Forget the prints noted so far: at a cell's start, and after a %%jit cell, which tells
    its own prints (magics/jit.py)."""
    trace.printed_tracers.clear()


def cell_note() -> Note | None:
    """The note of the cell that just ran, or None: no tracer printed by the user's code."""
    printed = [(f, line, text) for f, line, text in trace.printed_tracers if is_user_file(f)]
    trace.printed_tracers.clear()
    if not printed:
        return None
    file, line, text = printed[0]
    at = source_label(_Site(file, line))
    jit = text.startswith(("JitTracer", "DynamicJaxprTracer"))
    what = ("a placeholder with a shape and dtype, not the value" if jit else
            "a tracer (the value with what the transformation tracks), not an array")
    when = ("it runs while the function is traced, and again only when it is traced again "
            "(a new shape or dtype), not on every call" if jit else
            "it runs on every call, and shows the transformation's tracer")
    return Note(
        f"⚠ print ran while tracing (at {at}): it showed {text}, {what}",
        body=(f"A Python print inside a traced function sees tracers: {when}. To print the "
              f"values on every call, inside jit, vmap and grad alike:\n"
              f"  jax.debug.print(\"x = {{}}\", x)"),
        kind="info", details=True)


class _Site:
    """A (file, line) as source_label takes one (a SourceInfo's fields)."""
    def __init__(self, file, line):
        self.file, self.line, self.function = file, line, ""
