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
import re
import string as _string

from ...core import trace
from ...views.source import is_user_file
from ..display import Note, Site, source_label


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
    source = linecache.getline(file, line).strip()
    fixed = debug_print_fix(source)
    if fixed is not None:
        # jax.debug.print(f"x is {x}"), or "x is %s" % x, "x is {}".format(x), "x is " +
        # str(x): Python formatted the tracer at the trace, and debug.print prints that text
        # on every call (JAX 0.10.2: "x is JitTracer(~float32[])" twice for two calls):
        # "print ran while tracing" said the wrong print
        return Note(
            f"⚠ {_formatter(source)} formatted a traced value (at {at}): jax.debug.print was "
            f"given the text with {text} in it, made once while tracing, not the value",
            body=("jax.debug.print puts the values in on every call when they are passed to "
                  "it, and its string has {} or {name} where they go (not text that Python "
                  "fills in first: an f-string, %, str.format or str()):\n  " + fixed),
            kind="info", details=True)
    what = ("a placeholder with a shape and dtype, not the value" if _jit(text) else
            "a tracer (the value with what the transformation tracks), not an array")
    if not _prints(source):
        # str(x), an f-string or a message made of a traced value, no print on the line
        # ("print ran while tracing" named a print the cell does not have)
        return Note(
            f"⚠ a traced value was made text while tracing (at {at}): it reads {text}, "
            f"{what}",
            body=("str(), an f-string or % of a traced value runs while the function is "
                  "traced, and writes the tracer's placeholder, not the value: the text is "
                  "made once, at the trace. To see the values on every call, inside jit, vmap "
                  "and grad alike:\n  jax.debug.print(\"x = {}\", x)    # x: the value to "
                  "print\nor return the array and format it outside, where it has a value."),
            kind="info", details=True)
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


def _prints(code: str) -> bool:
    """Whether the line calls print (a line that does not parse alone: assumed to)."""
    try:
        return bool(_print_calls(ast.parse(code)))
    except SyntaxError:
        return True


def _print_calls(tree) -> list:
    """The calls of Python's print in `tree`."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
            isinstance(n.func, ast.Name) and n.func.id == "print"]


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
    calls = _print_calls(tree)
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
            parts.append(_escaped(str(a.value)))
        elif _makes_text(a):
            # "x is %s" % x, "x is " + str(x): Python makes the text at the trace, so the
            # values go to debug.print apart (JAX 0.10.2 printed "x is JitTracer(~float32[])"
            # on each call for the fix that passed the text: debug.print('{}', 'x is %s' % x))
            made = _text_of(a)
            if made is None:
                return None
            parts.append(made[0])
            values.extend(made[1])
        else:
            parts.append("{}")
            values.append(a)
    if not values:
        return None
    return ast.unparse(ast.Call(ast.Name(debug), [ast.Constant(" ".join(parts))] + values, []))


def _debug_print_of_text(tree):
    """The `jax.debug.print(...)` call in `tree` whose format is text Python made (an f-string,
    `%`, str.format, str() or `+` of them), or None."""
    return next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args and
                 ast.unparse(n.func).split(".")[-2:] == ["debug", "print"] and
                 _makes_text(n.args[0])), None)


def _formatter(code: str) -> str:
    """What made the text of the line's jax.debug.print call, in words ("an f-string")."""
    try:
        call = _debug_print_of_text(ast.parse(code))
    except SyntaxError:
        call = None
    node = call.args[0] if call is not None else None
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left if _makes_text(node.left) else node.right     # the first maker
    if isinstance(node, ast.BinOp):
        return "the % operator"
    if isinstance(node, ast.Call):
        return "str.format" if isinstance(node.func, ast.Attribute) else f"{node.func.id}()"
    return "an f-string"


def _escaped(text: str) -> str:
    """`text` as literal text of a str.format string."""
    return text.replace("{", "{{").replace("}", "}}")


def _makes_text(node) -> bool:
    """Whether an expression makes text in Python: an f-string, `"..." % v`,
    `"...".format(...)`, `str(v)`, `repr(v)`, or `+` of one of them."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Call):
        return (isinstance(node.func, ast.Name) and node.func.id in ("str", "repr")) or \
            (isinstance(node.func, ast.Attribute) and node.func.attr == "format")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return any(_makes_text(side) or (isinstance(side, ast.Constant) and
                                         isinstance(side.value, str))
                   for side in (node.left, node.right))
    return False


def _text_of(node) -> tuple[str, list] | None:
    """(a str.format string, its values in order) for an expression that makes text, or None
    where it cannot be said so (a format with names or numbers, a %-spec with no brace form).

        >>> text, values = _text_of(ast.parse("'x = ' + str(x) + ', %s' % (y,)").body[0].value)
        >>> text, [ast.unparse(v) for v in values]
        ('x = {}, {}', ['x', 'y'])
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _escaped(node.value), []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text_of(node.left), _text_of(node.right)
        return None if left is None or right is None else \
            (left[0] + right[0], left[1] + right[1])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("str", "repr") and len(node.args) == 1 and not node.keywords:
        return ("{}" if node.func.id == "str" else "{!r}"), list(node.args)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and \
            isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        text = _percent_braces(node.left.value, len(values))
        return None if text is None else (text, list(values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "format" and isinstance(node.func.value, ast.Constant) and \
            isinstance(node.func.value.value, str) and not node.keywords and \
            not any(isinstance(a, ast.Starred) for a in node.args):
        try:
            fields = [f for _, f, _, _ in _string.Formatter().parse(node.func.value.value)
                      if f is not None]
        except ValueError:
            return None
        # auto-numbered fields alone: "{} and {:.2f}" keeps its meaning among other text
        return (node.func.value.value, list(node.args)) if \
            all(f == "" for f in fields) and len(fields) == len(node.args) else None
    if isinstance(node, ast.JoinedStr):
        text, values = "", []
        for part in node.values:
            if isinstance(part, ast.Constant):
                text += _escaped(str(part.value))
                continue
            spec = _spec(part)
            if spec is None:
                return None
            text += "{" + spec + "}"
            values.append(part.value)
        return text, values
    return None


def _spec(part: ast.FormattedValue) -> str | None:
    """An f-string field's `!r:.3f` (its conversion and constant format spec), or None where
    the spec holds a value of its own."""
    spec = ""
    if part.format_spec is not None:
        if not all(isinstance(v, ast.Constant) for v in part.format_spec.values):
            return None
        spec = ":" + "".join(str(v.value) for v in part.format_spec.values)
    return ("" if part.conversion == -1 else "!" + chr(part.conversion)) + spec


_PERCENT = re.compile(r"%(\([^)]*\))?([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])")


def _percent_braces(fmt: str, count: int) -> str | None:
    """A %-format string as the str.format string that prints `count` values alike, or None
    (a mapping key, a `*` width, a spec str.format has not, another number of values).

        >>> _percent_braces("x = %s, %r, %5.2f%%, %-4d", 4)
        'x = {}, {!r}, {:5.2f}%, {:<4d}'
    """
    out, at, used = "", 0, 0
    for m in _PERCENT.finditer(fmt):
        key, flags, width, precision, kind = m.groups()
        out += _escaped(fmt[at:m.start()])
        at = m.end()
        if kind == "%" and not (key or flags or width or precision):
            out += "%"
            continue
        if key or "*" in (width or "") + (precision or ""):
            return None
        used += 1
        if kind in "sr":
            if flags or width or precision:
                return None     # (a width on an array's text: JAX's Array.__format__ refuses)
            out += "{}" if kind == "s" else "{!r}"
            continue
        kind = {"i": "d", "u": "d"}.get(kind, kind)
        if kind not in "doxXeEfFgG":
            return None
        align = "<" if "-" in flags else ""
        spec = (align + "".join(f for f in "+ " if f in flags)[:1] + ("#" if "#" in flags else "")
                + ("0" if "0" in flags and not align else "") + (width or "") +
                ("." + precision if precision else "") + kind)
        out += "{:" + spec + "}"
    out += _escaped(fmt[at:])
    return out if used == count and "%" not in fmt[at:] else None


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
    call = _debug_print_of_text(tree)
    if call is None:
        return None
    if not isinstance(call.args[0], ast.JoinedStr):
        # "x is %s" % x, "x is {}".format(x), "x is " + str(x): the values passed in order
        # (a call with more positional values than that raised at the trace: none to fix)
        made = _text_of(call.args[0])
        if made is None or len(call.args) > 1:
            return None
        call.args = [ast.Constant(made[0])] + made[1]
        return ast.unparse(tree)
    text, positional, named = "", [], {}
    for part in call.args[0].values:
        if isinstance(part, ast.Constant):
            text += str(part.value).replace("{", "{{").replace("}", "}}")
            continue
        spec = _spec(part)
        if spec is None:
            return None
        if isinstance(part.value, ast.Name):
            named[part.value.id] = part.value
            text += "{" + part.value.id + spec + "}"
        else:
            positional.append(part.value)
            text += "{" + spec + "}"
    call.args = [ast.Constant(text)] + positional + call.args[1:]
    call.keywords = [k for k in call.keywords if k.arg not in named] + \
        [ast.keyword(name, value) for name, value in named.items()]
    return ast.unparse(tree)
