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
from .display import Note, Site, source_label


def clear() -> None:
    """Forget the prints noted so far: at a cell's start, and after a %%jit cell, which tells
    its own prints (magics/jit.py)."""
    trace.printed_tracers.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no tracer printed by the user's code, or
    only by print lines told of before (`told`: the (file, line, kind of tracer) told, kept by
    the loaded extension). A print of tracers on purpose (jax-primitives' `trace` helper, one
    line printing in 10 cells) is told once; a cell edited and run again is another file."""
    printed = [p for p in trace.printed_tracers if is_user_file(p[0])]
    trace.printed_tracers.clear()
    if told is not None:
        keys = [(f, line, staged) for f, line, _, staged in printed]
        printed = [p for p, key in zip(printed, keys) if key not in told]
        told.update(keys)
    if not printed:
        return None
    file, line, text, staged = printed[0]
    at = source_label(Site(file, line))
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
    what = ("a placeholder with a shape and dtype, not the value" if _jit(text) else
            "a tracer (the value with what the transformation tracks), not an array")
    # a grad's or vmap's tracer inside a jit (a loss printing under jit(grad(loss))) runs at
    # the jit's trace alone too: JAX 0.10.2 prints its GradTracer once for three calls (it
    # said "it runs on every call")
    when = ("it runs while the function is traced, and again only when it is traced again "
            "(a new shape or dtype), not on every call" if _jit(text) else
            "it runs while the jitted function around it is traced, and again only when that "
            "one is traced again (a new shape or dtype), not on every call" if staged else
            "it runs on every call, and shows the transformation's tracer")
    # the learner's own print rewritten (external-callbacks' `print("...: {}".format(y))`
    # was offered `jax.debug.print("x = {}", x)`, which prints another value, or raises
    # NameError where the function has no x)
    own = print_fix(linecache.getline(file, line).strip())
    fix = (f", in place of your print:\n  {own}" if own else
           ":\n  jax.debug.print(\"x = {}\", x)    # x: the value to print")
    # tracing.md's f prints x, y and result: each line that printed a tracer, rewritten
    # (the first alone left the learner's other two printing tracers)
    lines = list(dict.fromkeys((f, n) for f, n, _, _ in printed))
    rewritten = [(print_fix(linecache.getline(f, n).strip()), source_label(Site(f, n)))
                 for f, n in lines]
    if own and len(lines) > 1 and all(code for code, _ in rewritten):
        fix = (f", in place of each of your {len(lines)} prints that showed a tracer:\n" +
               "\n".join(f"  {code}    # at {where}" for code, where in rewritten))
    return Note(
        f"⚠ print ran while tracing (at {at}): it showed {text}, {what}",
        body=(f"A Python print inside a traced function sees tracers: {when}. To print the "
              f"values on every call, inside jit, vmap and grad alike{fix}"),
        kind="info", details=True)


def _jit(text: str) -> bool:
    """Whether the tracer printed is a jit's placeholder (not a grad's or vmap's tracer)."""
    return text.startswith(("JitTracer", "DynamicJaxprTracer"))


def print_fix(code: str) -> str | None:
    """The line's `print(...)` as a `jax.debug.print` of the same text and values, or None
    where the line holds no one print of plain arguments (sep=, end=, file=, *args).

        >>> print_fix('print("intermediate value: {}".format(y))')
        "jax.debug.print('intermediate value: {}', y)"
        >>> print_fix('print("x is", x, 2)')
        "jax.debug.print('x is {} 2', x)"
        >>> print_fix('print(x, jax.typeof(x))') is None    # debug.print refuses a type
        True
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name) and n.func.id == "print"]
    if len(calls) != 1 or calls[0].keywords or \
            any(isinstance(a, ast.Starred) for a in calls[0].args):
        return None
    args, debug = calls[0].args, "jax.debug.print"
    if any(isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] == "typeof"
           for a in args for n in ast.walk(a)):
        return None       # jax.debug.print refuses a type ("as a JAX value", JAX 0.10.2)
    if len(args) == 1 and isinstance(args[0], ast.JoinedStr):
        return debug_print_fix(f"{debug}({ast.unparse(args[0])})")
    if len(args) == 1 and isinstance(args[0], ast.Call) and \
            isinstance(args[0].func, ast.Attribute) and args[0].func.attr == "format" and \
            isinstance(args[0].func.value, ast.Constant) and \
            isinstance(args[0].func.value.value, str) and \
            not any(isinstance(a, ast.Starred) for a in args[0].args) and \
            all(k.arg is not None for k in args[0].keywords):
        fmt = args[0]
        call = ast.Call(ast.Name(debug), [fmt.func.value] + fmt.args, fmt.keywords)
        return ast.unparse(call)
    parts, values = [], []
    for a in args:
        if isinstance(a, ast.Constant) and isinstance(a.value, (str, int, float)):
            parts.append(str(a.value).replace("{", "{{").replace("}", "}}"))
        else:
            parts.append("{}")
            values.append(a)
    if not values:
        return None
    return ast.unparse(ast.Call(ast.Name(debug), [ast.Constant(" ".join(parts))] + values, []))


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
