"""The card for jax.debug.print called as Python's print is: `jax.debug.print("x =", x)`
(JAX: "Unused positional arguments"), `jax.debug.print(x)` ("expected str"), a named field
given by position (`"{x:.2f}", x`: KeyError 'x'), an unnamed field given a value by name
(`"{:.2f}", x=x`: IndexError), and `"x = %f" % x` formatted in Python at
the trace (a concretization error). jax.debug.print takes a format string with `{}` fields
and the values after it; the rewrite is the learner's line so written, each run under JAX
0.10.2 with its printed text recorded (tests/data/card_rewrites_pasted_cases.py).

    jax.debug.print("x =", x)     ->  jax.debug.print("x = {}", x)
    jax.debug.print("%.2f" % x)   ->  jax.debug.print("{:.2f}", x)
"""
from __future__ import annotations

import ast
import linecache
import re
import string

from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _parse_line, _replaced

_UNUSED = re.compile(r"^Unused positional arguments to `jax\.debug\.print`")
_NOT_STR = re.compile(r"^expected str, got \w+$")
_PERCENT = re.compile(r"%(\.\d+)?([sdifegr])")
_DOCS = "https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html"


def _print_call(where):
    """(the line's tree, its jax.debug.print call) or None."""
    tree = _parse_line(where) if where else None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and ast.unparse(node.func) in (
                "jax.debug.print", "debug.print"):
            return tree, node
    return None


def _rewrite(exc, where) -> str | None:
    """The learner's jax.debug.print call in its own form, or None where it is none of the
    five this knows (each error says which it is)."""
    found = _print_call(where)
    if found is None or any(isinstance(a, ast.Starred) for a in found[1].args) or \
            not found[1].args:
        return None
    tree, call = found
    first, rest = call.args[0], [ast.unparse(a) for a in call.args[1:]]
    fmt = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) \
        else None
    if type(exc).__name__ == "ConcretizationTypeError":     # "x = %f" % x: Python's format
        if not (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mod) and
                isinstance(first.left, ast.Constant) and isinstance(first.left.value, str)):
            return None
        given = first.right.elts if isinstance(first.right, ast.Tuple) else [first.right]
        fmt = _PERCENT.sub(_field, first.left.value)
        values = [ast.unparse(g) for g in given]
    elif _NOT_STR.match(str(exc)) and fmt is None and not call.keywords:   # print(x)
        fmt, values = f"{ast.unparse(first)} = {{}}", [ast.unparse(first)]
    elif isinstance(exc, KeyError) and fmt is not None:    # "{x}", x: the field's name
        names = [f for _, f, _, _ in string.Formatter().parse(fmt) if f]
        if len(names) != len(rest) or not all(n.isidentifier() for n in names):
            return None
        new = f"{ast.unparse(call.func)}({fmt!r}, " + \
            ", ".join(f"{n}={v}" for n, v in zip(names, rest)) + ")"
        return _replaced(tree, call, new)
    elif isinstance(exc, IndexError) and fmt is not None and not rest and call.keywords:
        # "x = {}", x=x: the fields named for the values, in order
        fields = [f for _, f, _, _ in string.Formatter().parse(fmt) if f is not None]
        names = [k.arg for k in call.keywords]
        if fields != [""] * len(names) or None in names:
            return None
        return _replaced(tree, call, f"{ast.unparse(call.func)}({_rebuilt(fmt, iter(names))!r}, " +
                         ", ".join(ast.unparse(k) for k in call.keywords) + ")")
    elif _UNUSED.match(str(exc)) and fmt is not None:     # "x =", x: a field for each
        if len(_PERCENT.findall(fmt)) == len(rest):     # "x = %f", x: print's % habit
            fmt = _PERCENT.sub(_field, fmt.replace("{", "{{").replace("}", "}}"))
        fields = sum(1 for _, f, _, _ in string.Formatter().parse(fmt) if f is not None)
        fmt, values = fmt.rstrip() + " {}" * (len(rest) - fields), rest
    else:
        return None
    return _replaced(tree, call, f"{ast.unparse(call.func)}({fmt!r}, {', '.join(values)})")


def _rebuilt(fmt: str, names=None, specs=True) -> str:
    """`fmt` written again, its fields named from `names` in order (an iterator; None: as
    they are), their format specs kept or dropped.

        >>> _rebuilt("x = {:.2f}", iter(["x"])), _rebuilt("v = {v:.2f}", specs=False)
        ('x = {x:.2f}', 'v = {v}')
    """
    out = []
    for literal, field, spec, conversion in string.Formatter().parse(fmt):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is not None:
            out.append("{" + (field if names is None else next(names)) +
                       (f"!{conversion}" if conversion else "") +
                       (f":{spec}" if spec and specs else "") + "}")
    return "".join(out)


def _field(spec) -> str:
    """A %-conversion as a str.format field: `%.2f` as `{:.2f}`, `%d` and `%s` as `{}`."""
    precision, kind = spec.groups()
    return "{:" + (precision or "") + kind + "}" if precision or kind in "fe" else "{}"


def _is_debug_print(e) -> bool:
    if not (_UNUSED.match(str(e)) or isinstance(e, (KeyError, IndexError)) or
            _NOT_STR.match(str(e)) or type(e).__name__ == "ConcretizationTypeError"):
        return False
    where, _ = _user_lines(e)
    return _rewrite(e, where) is not None


def _debug_print_card(exc, where, called_from) -> ErrorCard:
    rewrite = _rewrite(exc, where)
    return ErrorCard(
        "debug-print", "jax.debug.print takes a format string, then the values",
        why=("jax.debug.print prints as the compiled program runs, so it formats the values "
             "itself: its first argument is a str.format string with a {} field for each "
             "value passed after it (or {name} for name=value). Python's print habits (values "
             "side by side, a value alone, % formatting of a traced value) do not fit it."),
        fix="Write a field for each value in the string and pass the values after it.",
        rewrite=f"{rewrite}    # prints the values as the program runs", docs=_DOCS)


# ------------------------------------------------------------------ a spec of an array's value
# NumPy's refusal, inside the print's host callback, of a format spec for an array of more than
# one value ('{:.2f}' of a vector): the program's call raises (JAX: a JaxRuntimeError), and the
# print's own line is the one the callback was staged at
_SPEC_OF_ARRAY = "unsupported format string passed to numpy.ndarray.__format__"


def _staged_print(e):
    """(the staged line as a `where`, its tree, its jax.debug.print call) where a
    jax.debug.print's format spec met an array as the program ran; None otherwise."""
    staged = getattr(e, "staged_at", None)
    if type(e).__name__ != "CallbackError" or str(e.__cause__) != _SPEC_OF_ARRAY or not staged:
        return None
    path, line = staged
    where = {"code": linecache.getline(path, line).strip(), "line": line, "_path": path}
    found = _print_call(where)
    if found is None or not found[1].args or not isinstance(found[1].args[0], ast.Constant) \
            or not isinstance(found[1].args[0].value, str):
        return None
    return (where, *found)


def _is_print_spec_of_array(e) -> bool:
    return _staged_print(e) is not None


def _print_spec_of_array_card(exc, where, called_from) -> ErrorCard:
    staged, tree, call = _staged_print(exc)
    fmt = call.args[0].value
    new = ast.Call(call.func, [ast.Constant(_rebuilt(fmt, specs=False)), *call.args[1:]],
                   call.keywords)
    return ErrorCard(
        "debug-print", f"jax.debug.print({fmt!r}) gave a format spec to an array",
        why=("jax.debug.print formats each value with its field's spec as the program runs; a "
             "spec such as :.2f formats one number, and the value there was an array of more "
             "than one (NumPy: \"unsupported format string passed to numpy.ndarray.__format__\"). "
             f"The print is at line {staged['line']}: the program's call raised it."),
        fix=("Drop the spec, {} prints the array's values; or give the field one number "
             "(jnp.mean(v), v[0])."),
        rewrite=f"{_replaced(tree, call, new)}    # line {staged['line']}: an array's values, "
                f"no spec", docs=_DOCS)
