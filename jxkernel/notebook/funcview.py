"""Traced vs static for a plain function call, as `%%jit --show static` shows a cell:

    %jxtraced f(x, 3)

shows f's source with each parameter marked as jit sees it at this call (traced,
with its type, or static, with its value), and, when tracing fails, the line
where it failed with what to do. A jitted function keeps its own
static_argnums/static_argnames; for any other function, arguments that are not
arrays or numbers are static (so `%jaxpr f(x, 'sin')` traces what it can).
"""
from __future__ import annotations

import ast
import inspect
import os
import textwrap

from ..transforms.jit import Jitted
from ..views.jit_for_call import jit_for_call
from ..views.timing import tool_jit
from .cell import STATIC, TRACED, classify
from .display import cell_name, short_repr
from .program import CellError, describe_traced
from .widgets.cell_view import CellView


def as_jitted(fun, args, kwargs):
    """(jitted, args, kwargs) that trace `fun(*args, **kwargs)` as jit would: what is not
    traced in a cell (cell.classify) static, the jit marked as the tool's (views/timing.py)."""
    jitted, dynamic_kw = jit_for_call(fun, args, kwargs, lambda v: classify(v, False) != TRACED)
    return (jitted if jitted is fun else tool_jit(jitted)), args, dynamic_kw


def bound_arguments(fun, args, kwargs) -> dict | None:
    """{parameter: value} of this call (defaults included), or None if it can't be bound."""
    try:
        bound = inspect.signature(inspect.unwrap(fun)).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def parameter_kinds(fun, args, kwargs) -> list[dict]:
    """[{name, kind, detail}] for each parameter, as jit(fun) sees this call."""
    target = inspect.unwrap(fun)
    try:
        sig = inspect.signature(target)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return []
    passed = set(bound.arguments)
    bound.apply_defaults()
    # a Jitted knows both spellings of its statics (it infers numbers from names and back)
    nums = fun._static_argnums if isinstance(fun, Jitted) else None
    names = fun._static_argnames if isinstance(fun, Jitted) else ()
    rows = []
    for i, (name, param) in enumerate(sig.parameters.items()):
        value = bound.arguments.get(name)
        if name not in passed:
            kind = STATIC          # a default jit never sees: a constant of the function
        elif nums is not None:
            by_position = i in nums and param.kind in (param.POSITIONAL_ONLY,
                                                      param.POSITIONAL_OR_KEYWORD)
            kind = STATIC if by_position or name in names else TRACED
        else:
            kind = TRACED if classify(value, False) == TRACED else STATIC
        detail = describe_traced(value) if kind == TRACED else short_repr(value)
        rows.append({"name": name, "kind": kind,
                     "detail": detail if name in passed else f"default {detail}"})
    return rows


def source_of(fun):
    """(dedented source, first line, filename, the def or lambda node) of a Python function,
    or None (builtins, functions without source)."""
    target = inspect.unwrap(fun)
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    try:
        lines, start = inspect.getsourcelines(target)
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text)
    except (OSError, TypeError, SyntaxError):
        return None
    want = ast.Lambda if target.__name__ == "<lambda>" else (ast.FunctionDef, ast.AsyncFunctionDef)
    node = next((n for n in ast.walk(tree) if isinstance(n, want) and
                 getattr(n, "name", "<lambda>") == target.__name__), None)
    return (text, max(start, 1), code.co_filename, node) if node is not None else None


def _positions(node, params) -> dict:
    """name -> [(line, col, end_col)] of each parameter, where bound and where read."""
    found: dict = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.arg) and sub.arg in params:
            found.setdefault(sub.arg, []).append((sub.lineno, sub.col_offset,
                                                  sub.col_offset + len(sub.arg.encode())))
        elif isinstance(sub, ast.Name) and sub.id in params:
            found.setdefault(sub.id, []).append((sub.lineno, sub.col_offset, sub.end_col_offset))
    return found


def _error_line(exc, filename, first, count):
    """The line (1 = the first shown) of the deepest frame of `exc` inside the source shown."""
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename and first <= tb.tb_lineno < first + count:
            line = tb.tb_lineno - first + 1
        tb = tb.tb_next
    return line


def static_fix_for(fun):
    name = getattr(inspect.unwrap(fun), "__name__", "f")
    name = "f" if name == "<lambda>" else name

    def fix(names):
        spelled = repr(names[0]) if len(names) == 1 else repr(tuple(names))
        return f"`jax.jit({name}, static_argnames={spelled})`"
    return fix


def function_view(fun, args, kwargs, *, traced=None, error=None):
    """The traced-vs-static view of `fun(*args, **kwargs)` (a CellView), or None when the
    function's source can't be found. `error` is the exception tracing raised, if any."""
    found = source_of(fun)
    if found is None:
        return None
    text, first, filename, node = found
    inputs = parameter_kinds(fun, args, kwargs)
    target = inspect.unwrap(fun)
    where = cell_name(filename) or os.path.basename(filename)
    label = f"{target.__qualname__} ({where})"
    outputs = []
    if traced is not None:
        outs = ", ".join(a.str_short(True) for a in traced.jaxpr.out_avals)
        outputs = [{"name": "returns", "detail": outs}]
    error_data = None
    if error is not None:
        original = error.original if isinstance(error, CellError) else error
        hint = error.hint if isinstance(error, CellError) else ""
        first_said = str(original).strip().splitlines()[0] if str(original).strip() else ""
        error_data = {"line": _error_line(original, filename, first, len(text.splitlines())),
                      "message": f"{type(original).__name__}: {first_said}",
                      "hint": hint and "What to do: " + hint}
    return CellView(text, label, inputs=inputs, outputs=outputs, error=error_data,
                    positions=_positions(node, {i["name"] for i in inputs}), first_line=first)
