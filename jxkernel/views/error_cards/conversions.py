"""A conversion of a traced value on the user's line (`int(i)`, `float(loss)`) rewritten to
stay traced, as JAX's messages advise: `i.astype(int)`, the array itself, and a print of a
formatted number as jax.debug.print; each conversion of a traced value on the line, so the
line pasted raises no more. And the card for a traced value given a format spec
(`print(f'{x:.2f}')` under jit, grad or vmap: Python's TypeError, JAX's words)."""
from __future__ import annotations

import ast
import re

from ...core.trace import Tracer
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame
from .rewrites import _debug_prints, _parse_line, _pattern

# JAX 0.10.2's words (a tracer has no __format__ of its own: object's refuses a spec)
_FORMAT = re.compile(r"unsupported format string passed to (\w*Tracer)\.__format__")
# the transformation each tracer class stands for, as the card says it
_TRACED_BY = {"DynamicJaxprTracer": "jit", "JitTracer": "jit", "BatchTracer": "vmap",
              "LinearizeTracer": "grad", "JVPTracer": "grad"}


def _is_traced_format(e) -> bool:
    return isinstance(e, TypeError) and _FORMAT.match(str(e)) is not None


def _format_card(exc, where, called_from) -> ErrorCard:
    """`print(f'{x:.2f}')` of a traced x: the print as jax.debug.print, which formats the
    value as the program runs (JAX 0.10.2 prints 3.00); any other f-string (a label kept in
    a name) cannot hold a value that does not exist yet: words and the pattern."""
    frame = _user_frame(exc)
    code = (where or {}).get("code") or ""
    names = [n for n in _formatted_names(code) if frame is not None and
             isinstance(frame.f_locals.get(n), Tracer)]
    what = ", ".join(names) if names else "the value"
    by = _TRACED_BY.get(_FORMAT.match(str(exc)).group(1), "a transformation")
    spec = re.search(r"\{[^{}:]*:[^{}]*\}", code)
    spec = spec.group(0) if spec else "{x:.2f}"
    arrays = {n for n in names if getattr(frame.f_locals.get(n), "shape", ()) != ()}
    printed = _formatted_print(code, arrays)
    rewrite = (f"{printed}    # prints the values as the program runs" if printed else
               _pattern("return x, and format it after the call: f'{float(out):.2f}'\n"
                        "jax.debug.print('x = {x:.2f}', x=x)   # or see it as it runs"))
    return ErrorCard(
        "traced-format", "A format spec given a traced value",
        why=(f"A format spec ({spec}) asks for a number's digits, but {what} is a tracer "
             f"here (traced by {by}), which takes no format spec: Python fills in the "
             f"f-string while tracing, and under jit no value exists yet."),
        fix=("Print it with jax.debug.print, which formats the values as the compiled program "
             "runs (its string with {x:.2f} where each goes, the values passed, not an "
             "f-string); or return the value and format it after the call."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/debugging.html")


def _formatted_names(code) -> list:
    """The names in the line's f-string fields that carry a format spec."""
    tree = _parse_line({"code": code})
    return list(dict.fromkeys(
        n.id for part in ast.walk(tree) if tree is not None
        and isinstance(part, ast.FormattedValue) and part.format_spec is not None
        for n in ast.walk(part.value) if isinstance(n, ast.Name)))


def _astype_rewrite(where, name, frame=None) -> str:
    """JAX's advice for int(x) / bool(x) of a tracer, x.astype(int), written on the user's
    line: the converted expression itself cast (it said `value = x.astype(int)` whatever the
    line converted, so `x[int(i)]` pasted as the data array cast, and `int(x.sum())` as the
    whole vector); with the user's `frame`, every conversion on the line of a traced value
    (`lo, hi = int(x.min()), int(x.max())` had the first cast alone: pasted, the second
    raised JAX's ConcretizationTypeError again); the template where the line has no such
    call.

        >>> _astype_rewrite({"code": "return x[int(i)]"}, "int")
        'return x[i.astype(int)]   # instead of int(i): traced, an array of int dtype'
        >>> _astype_rewrite({"code": "n = int(a + b)"}, "int")
        'n = (a + b).astype(int)   # instead of int(a + b): traced, an array of int dtype'
    """
    code = where["code"] if where else ""
    casts = _traced_calls(where, name, frame)
    if not casts:
        return f"# x.astype({name}) in place of {name}(x): traced, an array of {name} dtype"
    listed = _lists_indexed(where, code, casts, frame)
    note = "" if listed == code else " (a list indexed by one made an array)"
    code = listed
    for whole, value, simple in casts:
        code = code.replace(whole, f"{value if simple else f'({value})'}.astype({name})", 1)
    said = " and ".join(whole for whole, _, _ in casts)
    arrays = "an array" if len(casts) == 1 else "arrays"
    return _printed_as_it_runs(code) or \
        f"{code}   # instead of {said}: traced, {arrays} of {name} dtype{note}"


def _lists_indexed(where, code, casts, frame) -> str:
    """`code` with each Python list or tuple the casts index (`table[int(i)]`, table a list)
    made an array: a list's index is asked for __index__, which a traced array cannot give
    (JAX 0.10.2, `table[i.astype(int)]` pasted: TracerIntegerConversionError)."""
    tree = _parse_line(where)
    if tree is None or frame is None:
        return code
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        index = ast.get_source_segment(where["code"], node.slice) or ""
        held = _named_value(frame, node.value.id)
        if isinstance(held, (list, tuple)) and any(w in index for w, _, _ in casts):
            whole = ast.get_source_segment(where["code"], node)
            code = code.replace(whole, f"jnp.asarray({node.value.id})"
                                       f"{whole[len(node.value.id):]}", 1)
    return code


def _unwrapped(where, name, frame) -> str:
    """The user's line with its float() (complex()) calls of traced values dropped, each
    array kept (parenthesized where an operator would bind otherwise: `float(a + b) * 2`
    is `(a + b) * 2`); a print of an f-string formatting one (`{float(x):.3f}`) as
    jax.debug.print, since a format spec needs a number and a tracer has none (JAX 0.10.2:
    "unsupported format string passed to DynamicJaxprTracer.__format__"); "" where the line
    has no such call."""
    code = where["code"] if where else ""
    casts = _traced_calls(where, name, frame)
    if not casts:
        return ""
    for whole, value, simple in casts:
        code = code.replace(whole, value if simple else f"({value})", 1)
    printed = _formatted_print(code)
    if printed:
        return (f"{printed}    # prints the values as the program runs: a format spec "
                f"needs a number, which a traced value has not")
    return _printed_as_it_runs(code) or f"{code}   # the array itself, traced: no {name}()"


def _printed_as_it_runs(code) -> str:
    """`code`, a print(...) of values kept traced (its conversion dropped), as
    jax.debug.print: print itself runs while tracing and shows the tracer (JAX 0.10.2 prints
    `loss: JitTracer(~float32[])`), where the learner wanted the value; "" for any other
    line.

        >>> _printed_as_it_runs("print('loss:', x)").split("    #")[0]
        "jax.debug.print('loss: {}', x)"
    """
    tree = _parse_line({"code": code})
    stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and
            call.func.id == "print"):
        return ""
    printed = _debug_prints([stmt])
    return f"{printed}    # prints the values as the program runs" if printed else ""


def _traced_calls(where, name, frame) -> list:
    """(the call's text, its argument's text, whether the argument needs no parentheses)
    for the line's first `name(...)` call of one argument, then, with `frame`, every other
    whose argument reads a traced value there; [] where the line has none it can rewrite."""
    code = where["code"] if where else ""
    tree = _parse_line(where)
    found = []
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id == name and len(call.args) == 1 and not call.keywords:
            whole = ast.get_source_segment(code, call)
            value = ast.get_source_segment(code, call.args[0])
            if not whole or not value or code.count(whole) != 1:
                if not found:
                    return []
                continue
            if found and (frame is None or not _reads_traced(call.args[0], frame) or
                          any(whole in w or w in whole for w, _, _ in found)):
                continue
            simple = isinstance(call.args[0], (ast.Name, ast.Attribute, ast.Call,
                                               ast.Subscript))
            found.append((whole, value, simple))
    return found


def _reads_traced(node, frame) -> bool:
    """Whether `node` reads a name bound to a tracer in `frame`."""
    names = frame.f_locals
    return any(isinstance(names.get(n.id), Tracer) for n in ast.walk(node)
               if isinstance(n, ast.Name))


def _formatted_print(code, arrays=frozenset()) -> str:
    """`print(...)` of an f-string with a format spec (`{x:.2f}`) as jax.debug.print of the
    same text, its fields passed; "" for any other line. A field of one of `arrays` (names of
    values with dimensions) loses its spec, which an array takes in no format (JAX 0.10.2's
    debug.print raises NumPy's TypeError in its callback; rounded first, jnp.round(v, 2),
    float32 prints 4.5699997 for 4.57, no nearer the digits asked for).

        >>> _formatted_print("print(f'v = {v:.2f}')", {"v"})
        "jax.debug.print('v = {}', v)"
    """
    tree = _parse_line({"code": code})
    stmt = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and
            call.func.id == "print" and any(
                isinstance(part, ast.FormattedValue) and part.format_spec is not None
                for arg in call.args if isinstance(arg, ast.JoinedStr)
                for part in arg.values)):
        return ""
    for arg in call.args:
        for part in arg.values if isinstance(arg, ast.JoinedStr) else ():
            if isinstance(part, ast.FormattedValue) and part.format_spec is not None and \
                    isinstance(part.value, ast.Name) and part.value.id in arrays:
                part.format_spec = None
    return _debug_prints([stmt]) or ""
