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

import ast
import linecache

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
    fixed = debug_print_fix(linecache.getline(file, line).strip())
    if fixed is not None:
        # jax.debug.print(f"x is {x}"): Python formatted the tracer at the trace, and
        # debug.print prints that text on every call (JAX 0.10.2: "x is JitTracer(~float32[])"
        # twice for two calls): "print ran while tracing" said the wrong print
        return Note(
            f"⚠ an f-string formatted a traced value (at {at}): jax.debug.print was given "
            f"the text with {text} in it, made once while tracing, not the value",
            body=("jax.debug.print puts the values in on every call when they are passed to "
                  "it, and its string has {} or {name} where they go (not an f-string, "
                  "which Python fills in first):\n  " + fixed),
            kind="info", details=True)
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


def debug_print_fix(code: str) -> str | None:
    """The line `jax.debug.print(f"...")` with the f-string's values passed to debug.print
    (names by keyword, other expressions in order), or None where the line is no such call.

        >>> debug_print_fix('jax.debug.print(f"x is {x}, y is {y * 2:.3f}")')
        "jax.debug.print('x is {x}, y is {:.3f}', y * 2, x=x)"
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args and
                 ast.unparse(n.func).split(".")[-2:] == ["debug", "print"] and
                 isinstance(n.args[0], ast.JoinedStr)), None)
    if call is None:
        return None
    text, positional, named = "", [], {}
    for part in call.args[0].values:
        if isinstance(part, ast.Constant):
            text += str(part.value).replace("{", "{{").replace("}", "}}")
            continue
        spec = ""
        if part.format_spec is not None:
            if not all(isinstance(v, ast.Constant) for v in part.format_spec.values):
                return None
            spec = ":" + "".join(str(v.value) for v in part.format_spec.values)
        conversion = "" if part.conversion == -1 else "!" + chr(part.conversion)
        if isinstance(part.value, ast.Name):
            named[part.value.id] = part.value
            text += "{" + part.value.id + conversion + spec + "}"
        else:
            positional.append(part.value)
            text += "{" + conversion + spec + "}"
    call.args = [ast.Constant(text)] + positional + call.args[1:]
    call.keywords = [k for k in call.keywords if k.arg not in named] + \
        [ast.keyword(name, value) for name, value in named.items()]
    return ast.unparse(tree)


class _Site:
    """A (file, line) as source_label takes one (a SourceInfo's fields)."""
    def __init__(self, file, line):
        self.file, self.line, self.function = file, line, ""
