"""Error cards: the errors learners hit most, explained at their own line.

`card_for(exc)` reads a raised exception (its class, its JAX-worded message, what the core
attached when it raised it: `exc.provenance`, see `jxkernel.core.errors.provenance`, and its
traceback) and returns an `ErrorCard`, or None for an error it does not know. The exception
itself is left as it is (JAX's class, JAX's message); the card is only its display. It needs
no IPython: in a script, `print(card_for(e))` shows the text.

    >>> try:
    ...     jit(lambda x: x if x > 0 else -x)(1.0)
    ... except Exception as e:
    ...     card = card_for(e)
    >>> card.kind, card.origin["argument"]
    ('bool-conversion', 'x')

Kinds: bool-conversion (TracerBoolConversionError), concretization (ConcretizationTypeError),
integer-conversion (TracerIntegerConversionError), array-conversion
(TracerArrayConversionError), leaked-tracer (UnexpectedTracerError), unhashable-static
(ValueError: non-hashable static argument), vmap-sizes (ValueError: inconsistent sizes along
in_axes), loop-carry (TypeError: a scan/while_loop/fori_loop carry changing type),
boolean-index (NonConcreteBooleanIndexError), immutable-array (TypeError: `x[i] = v`),
key-reuse (KeyReuseError, with jax_debug_key_reuse), jit-method (TypeError: `@jax.jit` on a
method, its `self` no array), traced-slice (IndexError: `x[:n]` with a traced bound),
seed-as-key (TypeError: a seed given to jax.random where a key goes).

With `%load_ext jxkernel`, the exception handler of notebook/tracebacks.py shows the card
after the filtered traceback (also for `%%jit` cells and `%jaxpr`, through
`CellError.original`).

The MIME bundle `application/vnd.jxkernel.error+json` (`ErrorCard.to_json()`):

    version      1
    kind         one of the kinds above
    error        the exception's class name, e.g. "TracerBoolConversionError"
    title        one line saying what went wrong
    message      the first line of the exception's message
    where        the user's line: {"file": "In[3]" or "f.py", "line": 2, "function": "f",
                 "code": "if y > 0:"}, or null when no user frame is known
    called_from  the outermost user line when it differs from `where` (same fields), or null
    origin       where the offending value came from, or null: {"function", "transformation"
                 ("jit", ...), "argument" (the input it came from, e.g. "x" or
                 "params['w']"; null in a loop or branch body, whose inputs have no
                 names), "arguments" (all inputs it depends on), "input_index" (among the
                 flat inputs), "input_type" ("f32[3]"), "value_type", "steps":
                 [{"primitive", "where" ("In[3], line 2" or null), "code" (that line's text
                 or null), "type"}]} from the input to the value; for vmap-sizes {"arguments": [{"name", "axis", "size", "type"}]},
                 for loop-carry {"loop", "body", "path", "input_type", "output_type",
                 "mismatch" ("shapes", "dtypes" or "structure")}, for unhashable-static
                 {"argument", "value_type", "value", "function"}
    why          why it fails, in a sentence or two
    fix          what to do, in words
    rewrite      the suggested code (Python, several lines possible)
    docs         JAX's page for the error, or null
    traceback    the filtered traceback, ending with the exception's whole message (plain
                 text), shown folded; null when the card was made without the shell's
                 exception handler
"""
from __future__ import annotations

import ast
import inspect
import linecache
import os
import re
from collections import Counter
from dataclasses import dataclass

from ..core import dtypes
from ..core import errors as jx_errors
from ..transforms.jit_args import python_value_of
from .argument_uses import (UNKNOWN, argument_expression, literal_of, python_value, uses,
                             with_argument)
from .rich_view import RichView, esc
from .source import cell_name, is_user_file
from .source import label as source_label
from .schema import mime_type

MIME = mime_type("ErrorBundle")
VERSION = 1
_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
_MAX_STEPS = 8


@dataclass
class ErrorCard(RichView):
    """What the error card shows; see the module docstring for the fields."""
    MIME = MIME
    kind: str
    title: str
    why: str
    fix: str
    rewrite: str
    where: dict | None = None
    called_from: dict | None = None
    origin: dict | None = None
    docs: str | None = None
    error: str = ""               # the exception's class name and first line: card_for
    message: str = ""             # fills them in, the same for every kind
    traceback: str | None = None  # the filtered traceback with the whole message, as text:
    #                               the exception handler (tracebacks.py) fills it in

    def to_json(self) -> dict:
        return {"version": VERSION, "kind": self.kind, "error": self.error, "title": self.title,
                "message": self.message, "where": self.where, "called_from": self.called_from,
                "origin": self.origin, "why": self.why, "fix": self.fix,
                "rewrite": self.rewrite, "docs": self.docs, "traceback": self.traceback}

    def __repr__(self):
        return render_text(self)

    def _repr_html_(self):
        return render_html(self)



# ------------------------------------------------------------------ reading the exception
def card_for(exc: BaseException) -> ErrorCard | None:
    """The card for `exc`, or None when it is not one of the errors cards explain.

        >>> card_for(ValueError("mine")) is None
        True
    """
    original = getattr(exc, "original", None)          # a %%jit cell's CellError
    if isinstance(original, BaseException) and original is not exc:
        return card_for(original)
    for test, build in _BUILDERS:
        if test(exc):
            card = build(exc, *_user_lines(exc))
            card.error, card.message = type(exc).__name__, _first_line(exc)
            return card
    return None


def _first_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _user_lines(exc) -> tuple:
    """(innermost user line, outermost user line if another) of `exc`'s traceback."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_user_file(code.co_filename):
            frames.append(_location(code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    if not frames:
        return None, None
    inner, outer = frames[-1], frames[0]
    same_line = (outer["_path"], outer["line"]) == (inner["_path"], inner["line"])
    return inner, (None if same_line else outer)


def _location(filename, line, function) -> dict:
    return {"file": cell_name(filename) or os.path.basename(filename), "line": line,
            "function": function, "code": as_typed(linecache.getline(filename, line).strip()),
            "_path": filename}


_LINE_MAGIC = re.compile(r"get_ipython\(\)\.run_line_magic\((['\"])(\w+)\1, ((['\"]).*\4)\)")


def as_typed(code: str) -> str:
    """A cell's line as the user typed it: IPython runs `%timeit f(x)` as
    `get_ipython().run_line_magic('timeit', 'f(x)')`, which the card showed as the user's line.

        >>> as_typed("t = get_ipython().run_line_magic('timeit', '-o f(x)')")
        't = %timeit -o f(x)'
    """
    found = _LINE_MAGIC.search(code)
    if found is None:
        return code
    try:
        line = ast.literal_eval(found.group(3))
    except (ValueError, SyntaxError):
        return code
    return code[:found.start()] + f"%{found.group(2)} {line}".rstrip() + code[found.end():]


def _public(location):
    return None if location is None else {k: v for k, v in location.items() if k != "_path"}


def _origin(exc) -> dict | None:
    """The core's provenance of the offending tracer, in JSON-able form."""
    found = getattr(exc, "provenance", None)
    if not found:
        return None
    steps = [{"primitive": prim, "where": _step_label(info),
              "code": (linecache.getline(info.file, info.line).strip() or None) if info else None,
              "type": out_type} for prim, info, out_type in found["steps"]]
    return {"function": found["function"], "transformation": found["transformation"],
            "argument": found["argument"], "arguments": list(found["arguments"]),
            "input_index": found.get("input_index"), "input_type": found["input_type"],
            "input_kind": found.get("input_kind"), "value_type": found["value_type"],
            "steps": steps}


def _step_label(info) -> str | None:
    """Where an operation was: 'In[3], line 2' for a cell (as the card's other lines say it),
    'file.py:12' for a file, None without a (useful) source line."""
    label = source_label(info)
    cell = cell_name(info.file) if label else None
    return f"{cell}, line {info.line}" if cell else (label or None)


def _static_fix(origin, where=None, exc=None) -> str:
    """How to make the origin's argument static where the function was transformed; "" when
    static cannot work: a static argument must be hashable and is compared by value, so only
    a plain Python value (a number, a bool, a tuple) can be one, never an array (its input
    type has dimensions) nor a leaf inside a dict or list argument (the whole container
    would have to be static, and a dict or list is not hashable). A function defined under
    `@jax.jit` gets the decorator rewritten: `f = jax.jit(f, static_argnames=...)` would wrap
    the jit object, whose own jit still traces the argument (JAX 0.10.2 raises the same error
    again)."""
    arg = origin and origin.get("argument")
    if not arg or origin.get("transformation") != "jit":   # a loop body's input can't be
        return ""
    if not arg.isidentifier() or is_array_input(origin):
        return ""
    function = origin.get("function") or "f"
    if function.startswith("cell["):
        return f"%%jit --static {arg}"
    if not function.isidentifier():       # a lambda: static where the line jits it, else named
        return _lambda_static(where, arg) or f"jax.jit(f, static_argnames=({arg!r},))"
    decorator, header = _jit_decorator(where, function)
    if decorator:
        # the decorator's own name for jit: `@jit` after `from jax import jit` has no `jax`
        return (f"from functools import partial\n"
                f"@partial({decorator[1:]}, static_argnames=({arg!r},))   # in place of "
                f"{decorator}\n{header}")
    rebound = _rebound(_jit_caller(exc, function), function, arg)
    return _value_passed(rebound, arg, _parameter_at(exc, function, arg),
                         origin.get("input_kind") == "array") if rebound else \
        f"{function} = jax.jit({function}, static_argnames=({arg!r},))"


def _parameter_at(exc, function, arg):
    """`arg`'s position among `function`'s parameters, read from its frame in the traceback
    (None where it is not there)."""
    tb = getattr(exc, "__traceback__", None)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == function:
            names = code.co_varnames[:code.co_argcount]
            return names.index(arg) if arg in names else None
        tb = tb.tb_next
    return None


def _value_passed(line, arg, position, array) -> str:
    """The static fix's call with the argument passed as a Python value where it came as an
    array (jit saw it: `array`), which made static as it is fails again (unhashable: JAX's
    ValueError): `jnp.array(True)` as `True`, a name as `flag.item()`."""
    expression = argument_expression(line, arg, position) if position is not None else None
    if not expression:
        return line
    value = python_value(expression, 0, python_value_of) if array else literal_of(expression)
    return (with_argument(line, arg, position, value) or line) if value else line


def _lambda_static(where, arg) -> str:
    """The user's line `jax.jit(lambda x: ...)(...)` with `arg` static_argnames there (JAX
    names a lambda's parameters as a def's), or "" when the line jits no such lambda."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func) in ("jax.jit", "jit") and \
                len(call.args) == 1 and isinstance(call.args[0], ast.Lambda) and \
                arg in [a.arg for a in call.args[0].args.args] and not call.keywords:
            call.keywords.append(ast.keyword("static_argnames",
                                             ast.Tuple([ast.Constant(arg)], ast.Load())))
            return ast.unparse(tree)
    return ""


def _jit_caller(exc, function):
    """{"code": the line} of the user's frame that called the jitted `function` (`return
    cube(x, 3)` inside the learner's `volume`, not the cell's `volume(...)`): the frame before
    the first frame of `function` in the traceback (jxkernel's own frames are filtered out of
    it, or skipped here), or None."""
    tb, caller = getattr(exc, "__traceback__", None), None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == function and caller is not None:
            line = linecache.getline(*caller).strip()
            return {"code": line} if line else None
        if is_user_file(code.co_filename):
            caller = (code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return None


def _rebound(called_from, function, arg) -> str:
    """The fix where the calling line names the jit otherwise than `function`: `jax.jit(f)(x,
    3)` gets static_argnames in place, and `g(x, 3)` with `g = jax.jit(f)` made earlier gets
    `g = jax.jit(f, ...)` (rebinding `f` left the learner's `g` tracing the argument); "" when
    the line calls `function` itself or says nothing clear."""
    tree = _parse_line(called_from)
    if tree is None:
        return ""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    for call in calls:                  # jax.jit(function)(...) in the line: add it there
        inner = call.func
        if isinstance(inner, ast.Call) and ast.unparse(inner.func) in ("jax.jit", "jit") and \
                [ast.unparse(a) for a in inner.args] == [function] and not inner.keywords:
            inner.keywords.append(ast.keyword("static_argnames",
                                              ast.Tuple([ast.Constant(arg)], ast.Load())))
            return ast.unparse(tree)
    names = [c.func.id for c in calls if isinstance(c.func, ast.Name)]
    if function in names or len(set(names)) != 1:
        return ""
    return f"{names[0]} = jax.jit({function}, static_argnames=({arg!r},))"


def _called_name(line, function) -> str:
    """The name `line` calls the jit of `function` by: the one plain name it calls, else
    `function`."""
    tree = _parse_line(line)
    names = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and
             isinstance(n.func, ast.Name)} if tree is not None else set()
    return names.pop() if len(names) == 1 else function


def _jit_decorator(where, function) -> tuple:
    """(the `@jax.jit` or `@jit` line that decorates `function`, whose body holds `where`, its
    `def` line), or ("", "") when it has none: read back from `where`'s line to the
    function's `def` and the decorators above it."""
    path = (where or {}).get("_path")
    if not path:
        return "", ""
    header = re.compile(rf"\s*(?:async\s+)?def\s+{re.escape(function)}\s*\(")
    line = where["line"]
    while line > 0 and not header.match(linecache.getline(path, line)):
        line -= 1
    define = linecache.getline(path, line).strip()
    while line > 1:
        line -= 1
        above = linecache.getline(path, line).strip()
        if not above.startswith("@"):
            break
        if re.fullmatch(r"@(?:[A-Za-z_][\w.]*\.)?jit", above):
            return above, define
    return "", ""


def is_array_input(origin) -> bool:
    """Whether the offending value came from an input with dimensions ("f32[3]"): an array,
    which no static_argnames can take. A rank-0 input ("f32[]") may be a Python scalar."""
    return bool((origin or {}).get("input_type", "").partition("[")[2].strip("]"))


def _array_note(origin) -> str:
    """Why the card does not offer static_argnames for an array argument."""
    if not (origin and origin.get("argument") and is_array_input(origin)):
        return ""
    return (f" {origin['argument']} is an array ({origin['input_type']}): it cannot be a "
            f"static argument (those must be hashable Python values).")


def _traced_phrase(origin) -> str:
    if origin and not origin.get("input_type") and origin.get("steps"):
        return (f"a value {origin['function']} made from constants with jnp operations "
                f"(traced for {origin['transformation']} all the same: no value)")
    if origin and not origin.get("argument") and origin.get("input_type"):
        return (f"input {origin['input_index']} of {origin['function']} (traced for "
                f"{origin['transformation']}: shape and dtype only, no value)")
    if not origin or not origin.get("argument"):
        return "a traced value"
    how = origin.get("transformation") or "the transformation"
    return f"{origin['argument']} (traced by {how}: shape and dtype only, no value)"


# ------------------------------------------------------------------ tracer errors
def _or_static(origin, static, kind) -> str:
    """`static` (_static_fix's) as an alternative after a card's rewrite ("" where none can
    work): for an argument that is a Python `kind` (value, int) that seldom changes."""
    return (f"\n# or, if {origin['argument']} is a Python {kind} that seldom changes (each "
            f"new value compiles anew):\n{static}") if static else ""


def _bool_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    rewrite = _branch_rewrite(where)
    static = _static_fix(origin, where, exc)
    rewrite += _or_static(origin, static, "value")
    return ErrorCard(
        "bool-conversion", "Python control flow on a traced value",
        why=(f"This line needs True or False, but the condition depends on "
             f"{_traced_phrase(origin)}. Python's if/while/and/or/not run while tracing, "
             f"before any value exists."),
        fix=("Branch inside the program: jnp.where(cond, a, b) computes both and picks "
             "elementwise; lax.cond(cond, true_fn, false_fn) runs one branch; loops: "
             "lax.while_loop / lax.fori_loop." + (" Or make the argument static." if static
                                                  else _array_note(origin))),
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin=origin, docs=_DOCS + "TracerBoolConversionError")


def _concretization_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    integer = isinstance(exc, jx_errors.TracerIntegerConversionError)
    static = _static_fix(origin, where, exc)
    code = where["code"] if where else ""
    converts = re.search(r"\b(int|float|complex|bool)\(([^()]*)\)?", code)
    # JAX's own advice for int(x) / float(x) of a tracer: convert the dtype, stay traced
    astype = f"value = x.astype({converts.group(1)})   # instead of {converts.group(1)}(x)" \
        if converts else ""
    if converts and converts.group(1) in ("float", "complex") and \
            (converts.group(2) or "").strip() and converts.group(0).endswith(")"):
        # float(w) only made a Python number of an array: the array itself does as well, and
        # stays traced (under grad, JAX refuses float() of w even though its value is known:
        # a Python number would have no derivative)
        astype = (f"{code.replace(converts.group(0), converts.group(2).strip(), 1)}   # the "
                  f"array itself, traced: no {converts.group(1)}()")
    # x.item() / x.tolist() of a static argument cannot work: static, x is the Python number
    # itself, which has no .item() (JAX: "'float' object has no attribute 'item'"); the fix is
    # to keep the array, which jnp code takes wherever it took the number
    pulls = re.search(r"\.(item|tolist)\(\)", code)
    if pulls:
        static = ""
        astype = (f"{code.replace(pulls.group(0), '', 1)}   # the array itself, traced: "
                  f"no .{pulls.group(1)}()")
    if static:
        in_place = static == _lambda_static(where, origin["argument"])   # the line itself
        # after a `def f(...):` the line is in its body: indented, as it would be pasted
        body = "    " if static.rstrip().endswith(":") else ""
        rewrite = static + (f"\n{body}# then this line sees a Python value:\n{body}{code}"
                            if code and not in_place else "")
        rewrite += f"\n# or, if an array is fine here, keep it traced:\n{astype}" if astype else ""
        loop = _range_loop_rewrite(where) if where else ""
        if loop:                    # JAX's fori_loop takes traced bounds: nothing static
            rewrite = (f"{loop}\n# or, if {origin['argument']} is a Python int that seldom "
                       f"changes (each new value compiles anew):\n{rewrite}")
    elif pulls:                                       # not a size: the number itself
        rewrite = astype
    elif astype and converts.group(1) in ("float", "complex"):     # a number, not a size
        rewrite = astype
    elif astype:
        rewrite = f"{astype}\n# a size? take it from a shape, known under jit:\nn = x.shape[0]"
    else:
        rewrite = "n = x.shape[0]        # shapes are static under jit: use them for sizes"
    if static:
        fix = ("Make the argument static (static_argnames, or --static in %%jit), so Python "
               "sees its value; sizes can come from shapes (x.shape), which are static.")
    else:
        fix = ("Keep the value traced: jnp operations instead of Python ones (x.astype(int) "
               "instead of int(x)); sizes must come from shapes (x.shape), which are static "
               "under jit." + _array_note(origin))
    return ErrorCard(
        "integer-conversion" if integer else "concretization",
        "A Python value was needed from a traced array",
        why=(f"This line needs a concrete Python value (a size, an index, a number), but it "
             f"comes from {_traced_phrase(origin)}."),
        fix=fix, rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin=origin, docs=_DOCS + (type(exc).__name__ if isinstance(exc, jx_errors.JAXTypeError)
                                     else "ConcretizationTypeError"))


def _is_traced_shape_error(e) -> bool:
    """jnp.zeros(n) with a traced n: JAX's plain TypeError, which carries the provenance."""
    return isinstance(e, TypeError) and getattr(e, "provenance", None) is not None and \
        str(e).startswith("Shapes must be 1D sequences of concrete values")


def _array_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    code = where["code"] if where else ""
    jnp_code = re.sub(r"\b(?:np|numpy|onp)\.", "jnp.", code)
    rewrite = (jnp_code if jnp_code != code else
               "y = jnp.asarray(x)          # jxkernel.numpy instead of NumPy on traced values")
    rewrite += ("\n# or, for NumPy code with no jnp equivalent, call it outside the transformed "
                "function (or through jax.pure_callback)")
    return ErrorCard(
        "array-conversion", "NumPy called on a traced value",
        why=(f"NumPy needs the numbers, but under the transformation {_traced_phrase(origin)} "
             f"has none yet."),
        fix="Use jxkernel.numpy (jnp) on traced values: the same functions, traced.",
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin=origin, docs=_DOCS + "TracerArrayConversionError")


def _leaked_card(exc, where, called_from) -> ErrorCard:
    origin = _origin(exc)
    function = (origin or {}).get("function") or "f"
    how = (origin or {}).get("transformation") or "jit"
    made = (origin or {}).get("steps") or []
    made_at = f" (made at {made[-1]['where']}: {made[-1]['code']})" \
        if made and made[-1]["where"] and made[-1]["code"] else ""
    return ErrorCard(
        "leaked-tracer", "A traced value escaped its transformation",
        why=(f"A value traced inside {function} (for {how}){made_at} was kept outside it, in "
             f"a global, a list or an attribute; once the trace ended it has no value."),
        fix="Return the value from the transformed function instead of storing it.",
        rewrite=_leak_rewrite(function, how),
        where=_public(where), called_from=_public(called_from), origin=origin,
        docs=_DOCS + "UnexpectedTracerError")


# a loop's or a branch's body (what JAX says it was traced for): how a value leaves it
_BODY_RETURNS = {
    "scan": "def step(carry, x):\n    ...\n    return carry, value    # out as scan's ys, "
            "stacked\n\ncarry, values = lax.scan(step, init, xs)",
    "fori_loop": "def body(i, state):\n    ...\n    return (carry, value)    # in the loop "
                 "state, not a list\n\ncarry, value = lax.fori_loop(lower, upper, body, "
                 "(init, value0))",
    "cond": "def branch(x):\n    ...\n    return result, value    # each branch returns "
            "both\n\nresult, value = lax.cond(pred, branch, other_branch, x)"}
_BODY_RETURNS.update({"while_body": _BODY_RETURNS["fori_loop"].replace(
    "def body(i, state)", "def body(state)").replace("lax.fori_loop(lower, upper, body,",
                                                     "lax.while_loop(cond_fun, body,"),
    "switch": _BODY_RETURNS["cond"].replace("lax.cond(pred, branch, other_branch, x)",
                                            "lax.switch(index, [branch, ...], x)")})


def _leak_rewrite(function, how) -> str:
    """Code that returns the leaked value instead of storing it: through the loop's state or
    the branches' results for a body (its name, a lambda's, would not parse), else from the
    jitted function."""
    if how in _BODY_RETURNS:
        return _BODY_RETURNS[how]
    name = function if function.isidentifier() else "f"
    return (f"def {name}(x):\n    ...\n    return result, value    # return it, don't store "
            f"it\n\nresult, value = jax.{how if how.isidentifier() else 'jit'}({name})(x)")


# ------------------------------------------------------------------ rewriting branches
def _branch_rewrite(where) -> str:
    """Code for a Python branch on a traced condition at `where`: the user's own `if`
    turned into jnp.where / lax.cond when it is simple enough, else a template."""
    node = _node_at(where)
    if isinstance(node, ast.IfExp):
        test, a, b = (ast.unparse(n) for n in (node.test, node.body, node.orelse))
        where_ = f"jnp.where({test}, {a}, {b})"
        cond = f"lax.cond({test}, lambda: {a}, lambda: {b})"
        # the user's whole statement with the expression replaced: `return x if c else -x`
        # lost its `return` (a function then returning None), an assignment its target
        stmt = getattr(node, "_statement", None)
        if stmt is not None:
            whole, part = ast.unparse(stmt), ast.unparse(node)
            if part in whole:
                where_, cond = whole.replace(part, where_, 1), whole.replace(part, cond, 1)
        return f"{where_}\n{_ONE_BRANCH}\n{cond}"
    if isinstance(node, ast.If):
        simple = _simple_if(node)
        test = ast.unparse(node.test)
        if simple is not None:
            head, a, b = simple
            return (f"{head}jnp.where({test}, {a}, {b})\n{_ONE_BRANCH}\n"
                    f"{head}lax.cond({test}, lambda: {a}, lambda: {b})")
        return (f"def true_branch(operands): ...     # the `if` body, returning its results\n"
                f"def false_branch(operands): ...    # the `else` body, same result types\n"
                f"result = lax.cond({test}, true_branch, false_branch, operands)")
    if isinstance(node, ast.BoolOp):        # `a and b` of traced booleans: elementwise
        return _logical_rewrite(node)
    if isinstance(node, ast.While):
        test = ast.unparse(node.test)
        step = _one_update(node.body)
        if step is not None and step[0] in {n.id for n in ast.walk(node.test)
                                            if isinstance(n, ast.Name)}:
            name, value = step
            return (f"{name} = lax.while_loop(lambda {name}: {test}, lambda {name}: {value}, "
                    f"{name})    # the loop, traced: {name} its state")
        return (f"def cond_fun(state): return {test}   # in terms of the loop state\n"
                f"def body_fun(state): ...              # the loop body, returning the new state\n"
                f"state = lax.while_loop(cond_fun, body_fun, state)")
    return ("y = jnp.where(cond, a, b)                   # elementwise, both computed\n"
            "y = lax.cond(cond, true_fn, false_fn, *operands)   # one branch runs")


# lax.cond needs both branches of one type (JAX 0.10.2: "cond branches must have equal output
# types"): `3. * x ** 2` and `-4 * x` of an int x are not, where jnp.where promotes them
_ONE_BRANCH = ("# or, to run only one branch (both must give the same dtype and shape: "
               "cast one with .astype where they differ):")


def _logical_rewrite(node) -> str:
    """`a and b` (or `or`) as jnp.logical_and / logical_or of the operands, in the user's
    statement: JAX's control-flow guide's fix, which jit traces."""
    word = "and" if isinstance(node.op, ast.And) else "or"
    name = f"jnp.logical_{word}"
    *rest, last = [ast.unparse(v) for v in node.values]
    text = last
    for value in reversed(rest):
        text = f"{name}({value}, {text})"
    stmt = getattr(node, "_statement", None)
    if stmt is not None and ast.unparse(node) in ast.unparse(stmt):
        text = ast.unparse(stmt).replace(ast.unparse(node), text, 1)
    return f"{text}    # elementwise, traced: Python's `{word}` needs one True or False"


def _one_update(body):
    """(name, its new value) when a loop's body is one update of one name (`i += 1`, `total
    = total + i`), else None: the state and step of a lax loop."""
    if len(body) != 1:
        return None
    stmt = body[0]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        name = stmt.target.id
        return name, ast.unparse(ast.BinOp(ast.Name(name), stmt.op, stmt.value))
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, ast.unparse(stmt.value)
    return None


def _range_loop_rewrite(where) -> str:
    """`for i in range(n): total += i` with a traced n, as lax.fori_loop (its bounds may be
    traced), or "" when the line is no such loop."""
    tree = _parse_file((where or {}).get("_path"))
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.For) and node.lineno == where["line"] and \
                isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) and \
                ast.unparse(node.iter.func) == "range" and 1 <= len(node.iter.args) <= 2 \
                and not node.orelse:
            step = _one_update(node.body)
            if step is None:
                return ""
            name, value = step
            bounds = [ast.unparse(a) for a in node.iter.args]
            start, stop = (["0"] + bounds)[-2:]
            return (f"{name} = lax.fori_loop({start}, {stop}, lambda {node.target.id}, {name}: "
                    f"{value}, {name})    # the loop, traced: {name} its state")
    return ""


def _node_at(where):
    """The `if`/`while` statement or conditional expression at the user's line, else its
    `and`/`or`, or None."""
    if not where:
        return None
    tree = _parse_file(where.get("_path"))
    if tree is None:
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and node.lineno == where["line"]:
            if found is None or isinstance(node, ast.IfExp):   # the expression beats its line
                found = node
    if found is None:       # `return a and b`: no branch on the line, the `and` is the test
        found = next((n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)
                      and n.lineno == where["line"]), None)
    if isinstance(found, ast.If):
        found._parent_body = _siblings(tree, found)
    if isinstance(found, (ast.IfExp, ast.BoolOp)):
        found._statement = _simple_statement_of(tree, found)
    return found


def _simple_statement_of(tree, node):
    """The innermost simple statement (a return, an assignment, an expression) holding
    `node`, or None (inside a compound statement's header)."""
    simple = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    best = None
    for stmt in ast.walk(tree):
        if isinstance(stmt, simple) and any(n is node for n in ast.walk(stmt)):
            if best is None or stmt.lineno >= best.lineno:
                best = stmt
    return best


def _parse_file(path):
    """The file's syntax tree; a %%jit cell's magic lines are blanked (numbers kept)."""
    lines = [("\n" if line.lstrip().startswith("%") else line)
             for line in (linecache.getlines(path) if path else [])]
    try:
        return ast.parse("".join(lines)) if lines else None
    except SyntaxError:
        return None


def _parse_line(where):
    """The syntax tree of the user's line (`where["code"]`); None without one or when it does
    not parse on its own (a line of a longer statement)."""
    if not where:
        return None
    try:
        return ast.parse(where["code"])
    except SyntaxError:
        return None


def _siblings(tree, target) -> list:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and target in body:
                return body
    return []


def _simple_if(node):
    """(head, a, b) when the `if` picks between two values: both branches `return`, or
    both assign the same name; an `if` that returns followed by a `return` counts."""
    body, orelse = node.body, node.orelse
    if not orelse:
        siblings = getattr(node, "_parent_body", [])
        after = siblings[siblings.index(node) + 1:] if node in siblings else []
        orelse = after[:1] if after and isinstance(after[0], ast.Return) else []
    if len(body) != 1 or len(orelse) != 1:
        return None
    a, b = body[0], orelse[0]
    if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value and b.value:
        return "return ", ast.unparse(a.value), ast.unparse(b.value)
    if isinstance(a, ast.Assign) and isinstance(b, ast.Assign) and len(a.targets) == 1 \
            and len(b.targets) == 1 and ast.unparse(a.targets[0]) == ast.unparse(b.targets[0]):
        return f"{ast.unparse(a.targets[0])} = ", ast.unparse(a.value), ast.unparse(b.value)
    return None


# ------------------------------------------------------------------ unhashable static
_UNHASHABLE = re.compile(r"^Non-hashable static arguments are not supported\. An error occurred "
                         r"while trying to hash an object of type <class '([\w.]+)'>, (.*), "
                         r"passed as static argument '([^']+)' of (.+?)\. The error was:", re.S)


def _unhashable_card(exc, where, called_from) -> ErrorCard:
    type_name, value_text, arg, function = _UNHASHABLE.match(str(exc)).groups()
    if _EQ_WITHOUT_HASH in str(exc) or _FIELD_UNHASHABLE in str(exc):   # an object: neither
        return _object_card(str(exc), type_name, arg, function, where, called_from)
    if hasattr(getattr(exc, "value", None), "shape"):        # an array (jit_args says which)
        return _array_static_card(exc, type_name, value_text, arg, function, where,
                                  called_from)
    hashable = _hashable_text(type_name, value_text)
    code = where["code"] if where else ""
    traced = _traced_call(code, function, arg)
    if traced and (hashable is None or type_name == "dict"):
        return _traced_static_card(type_name, value_text, arg, function, traced, hashable,
                                   where, called_from)
    if hashable and value_text in code:
        rewrite = code.replace(value_text, hashable, 1)
    elif hashable:
        rewrite = f"# pass {arg}={hashable} instead of {value_text}\n{code}".rstrip()
    else:     # (the jit the line calls, `power_jit = jax.jit(power, static_argnums=0)`)
        rewrite = f"{_called_name(where, function)} = jax.jit({function})   # {arg} traced " \
                  f"instead: not in static_argnums/static_argnames"
    # only where the function computes with it: traced, a shape, a size or a loop count
    # fails (jnp.zeros(shape) with a traced shape is JAX's "Shapes must be 1D sequences of
    # concrete values"), and "holds numbers" was said of exactly those too
    rewrite += f"\n# or, if {function} only computes with {arg} (never as a shape, a size or " \
               f"a loop count),\n# make it traced: drop it from static_argnums/" \
               f"static_argnames and pass jnp.asarray(...)"
    return ErrorCard(
        "unhashable-static", "A static argument must be hashable",
        why=(f"{arg} is a static argument of {function}: its value is part of the compile "
             f"cache's key, so it must be hashable, and a {type_name} is not."),
        fix=(f"Pass a hashable value ({hashable or 'a tuple, a frozenset'}); or, if {function} "
             f"only computes with {arg} (a shape, a size or a loop count must stay static), "
             f"make {arg} traced."),
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"argument": arg, "value_type": type_name, "value": value_text,
                "function": function},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jit.html")


def _array_static_card(exc, type_name, value_text, arg, function, where,
                       called_from) -> ErrorCard:
    """An array made static. The fix follows how the function's source uses it
    (views/argument_uses): needed as a Python value (an `if`, a shape, a loop count), the
    call passes that value, hashable (`True`, `(2, 3)`, `flag.item()`; tracing it raises, as
    JAX); only computed with, it is traced; both (array methods too), its Python value made
    an array where the methods are called; the source not found, both fixes with their
    conditions. Each was run under JAX (tests/data/error_advice_cases.py)."""
    used = uses(exc.function, arg) if getattr(exc, "function", None) else UNKNOWN
    code = where["code"] if where else ""
    position = getattr(exc, "position", None)
    python = python_value(argument_expression(code, arg, position) or arg,
                          len(exc.value.shape), python_value_of)
    passed = with_argument(code, arg, position, python) or \
        f"{code}\n# with {arg} passed as {python}".strip()
    keyword = "static_argnames" if position is None else "static_argnums"
    traced = _traced_call(code, function, arg) or (
        f"{_called_name(where, function)} = jax.jit({function})" if function.isidentifier()
        else f"# where the jit is made: leave {arg} out of {keyword} (traced)")
    needs = ", ".join(used.python)
    if used.python and used.array:
        fix = (f"{function} needs {arg} as a Python value ({needs}) and calls its array "
               f"methods: pass its Python value, {python}, and write jnp.asarray({arg}) where "
               f"the methods are called.")
        rewrite = f"{passed}\n# and in {function}: jnp.asarray({arg}).<method>(...)"
    elif used.python:
        fix = (f"{function} needs {arg} as a Python value ({needs}; traced, it raises): pass "
               f"its Python value, hashable: {python}.")
        rewrite = passed
    elif used.found:
        fix = (f"Pass {arg} traced: {function} only computes with it, and an array is a value "
               f"to trace (drop it from {keyword}).")
        rewrite = f"{traced}   # {arg} traced" if not traced.startswith("#") else traced
    else:
        fix = (f"If {function} needs {arg} as a Python value (an `if`, a shape, a loop count), "
               f"pass its Python value, {python}; if it only computes with it, pass it traced "
               f"(drop it from {keyword}).")
        rewrite = (f"{passed}   # a Python value\n# or, if {function} only computes with {arg}:"
                   f"\n{traced}")
    return ErrorCard(
        "unhashable-static", "A static argument must be hashable",
        why=(f"{arg} is a static argument of {function}: its value is part of the compile "
             f"cache's key, so it must be hashable, and an array ({type_name}) is not."),
        fix=fix, rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"argument": arg, "value_type": type_name, "value": value_text,
                "function": function},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jit.html")


def _traced_call(code, function, arg) -> str:
    """The user's line `jax.jit(f, static_argnums=1)(x, value)` with `arg` made traced (the
    static keyword dropped), or "" when the line makes no such jit or marks more static."""
    tree = _parse_line({"code": code}) if code else None
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and ast.unparse(call.func) in ("jax.jit", "jit") and \
                [ast.unparse(a) for a in call.args] == [function]:
            static = [k for k in call.keywords if k.arg in ("static_argnums", "static_argnames")]
            if len(static) != 1 or isinstance(static[0].value, (ast.Tuple, ast.List)) and \
                    len(static[0].value.elts) != 1:
                return ""
            call.keywords.remove(static[0])
            return ast.unparse(tree)
    return ""


def _traced_static_card(type_name, value_text, arg, function, traced, hashable, where,
                        called_from) -> ErrorCard:
    """An array or a dict as a static argument, at a line that makes the jit: the same line
    with it traced (JAX traces an array, and a dict of numbers is a pytree of traced leaves),
    and, where its values must be Python numbers while tracing, a hashable form. A dict as a
    tuple of pairs is read back with dict(...) (JAX 0.10.2: `d['a']` of the tuple raises)."""
    if type_name == "dict":
        alternative = (f"# or, if {function} needs its values as Python numbers (a shape, a "
                       f"size), pass {hashable} and read it inside as dict({arg})")
    else:
        alternative = (f"# or, if {function} needs its values as Python numbers (a shape, a "
                       f"size), keep it static as tuple({arg}.tolist())")
    kind = "a dict is a pytree: each value traced" if type_name == "dict" else \
        "an array is a value to trace"
    return ErrorCard(
        "unhashable-static", "A static argument must be hashable",
        why=(f"{arg} is a static argument of {function}: its value is part of the compile "
             f"cache's key, so it must be hashable, and a {type_name} is not."),
        fix=(f"Pass {arg} traced (drop it from static_argnums/static_argnames): {kind}. Only "
             f"values needed as Python numbers while tracing must be static, and hashable."),
        rewrite=f"{traced}   # {arg} traced: {kind}\n{alternative}",
        where=_public(where), called_from=_public(called_from),
        origin={"argument": arg, "value_type": type_name, "value": value_text,
                "function": function},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jit.html")


# transforms/jit_args.py's advice for an object of a user's class: a tuple of it or passing it
# traced (not a pytree) cannot work; its class or its field needs the change
_EQ_WITHOUT_HASH = "defines __eq__ but not __hash__"
_FIELD_UNHASHABLE = "which is not hashable: make it hashable where"


def _object_card(text, type_name, arg, function, where, called_from) -> ErrorCard:
    """A static object whose class has __eq__ and no __hash__, or a dataclass holding a
    list: the card's fix is jit's advice (the message's last line)."""
    kind = type_name.rsplit(".", 1)[-1]
    advice = text.strip().splitlines()[-1]
    if _EQ_WITHOUT_HASH in text:
        fix = (f"Give {kind} a __hash__ over the fields its __eq__ compares, or make it a "
               f"frozen dataclass (@dataclasses.dataclass(frozen=True) has both).")
        rewrite = (f"# in class {kind}, beside its __eq__:\n"
                   f"def __hash__(self):\n    return hash(tuple(vars(self).values()))")
    else:
        fix = advice[0].upper() + advice[1:]
        rewrite = f"# {advice}"
    return ErrorCard(
        "unhashable-static", "A static argument must be hashable",
        why=(f"{arg} is a static argument of {function}: its value is part of the compile "
             f"cache's key, so it must be hashable, and this {kind} is not."),
        fix=fix, rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"argument": arg, "value_type": type_name, "value": kind,
                "function": function},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jit.html")


def _hashable_text(type_name, value_text) -> str | None:
    """The same value written hashably, for lists, sets and dicts written as literals."""
    try:
        value = ast.literal_eval(value_text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if type_name == "list":
        return repr(tuple(value))
    if type_name == "set":
        return f"frozenset({value_text})"
    if type_name == "dict":
        return repr(tuple(sorted(value.items(), key=repr)))
    return None


# ------------------------------------------------------------------ vmap sizes
_VMAP_AXIS = re.compile(r"\* one axis had size (\d+): axis (-?\d+) of argument (.+?) of type "
                        r"(\w+)\[([\d,]*)\]")


def _vmap_card(exc, where, called_from) -> ErrorCard:
    mapped = [{"name": name, "axis": int(axis), "size": int(size),
               "type": f"{dtype}[{dims}]", "shape": [int(d) for d in dims.split(",") if d]}
              for size, axis, name, dtype, dims in _VMAP_AXIS.findall(str(exc))]
    sizes = Counter(m["size"] for m in mapped)
    size = max(sizes, key=lambda s: (sizes[s], -[m["size"] for m in mapped].index(s)))
    axes = [_axis_for(m, size) for m in mapped]
    advice = "; ".join(f"{m['name']}: " + (f"axis {a} has size {size}" if a is not None
                                            else f"None (not mapped: the same {m['name']} "
                                                 f"for every element)")
                       for m, a in zip(mapped, axes) if m["size"] != size)
    rewrite = _vmap_rewrite(where, mapped, axes) or \
        f"jax.vmap(f, in_axes=({', '.join(map(str, axes))}{',' if len(axes) == 1 else ''}))(...)"
    listing = ", ".join(f"{m['name']} {m['type']} axis {m['axis']} (size {m['size']})"
                        for m in mapped)
    return ErrorCard(
        "vmap-sizes", "vmap: the mapped axes have different sizes",
        why=(f"vmap maps every argument along its in_axes entry, one slice per element, so "
             f"those axes must have one size: {listing}."),
        fix=(f"Say per argument which axis to map, or None for an argument shared by every "
             f"element, with in_axes (to map over size {size}: {advice})."),
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"arguments": [{k: m[k] for k in ("name", "axis", "size", "type")}
                              for m in mapped]},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _axis_for(mapped, size):
    if mapped["size"] == size:
        return mapped["axis"]
    return next((i for i, d in enumerate(mapped["shape"]) if d == size), None)


def _vmap_rewrite(where, mapped, axes) -> str | None:
    """The user's line with `in_axes` set, when it calls vmap(f)(a, b, ...) with plain
    arguments, one mapped leaf each."""
    tree = _parse_line(where)
    if tree is None or not all(m["name"].isidentifier() for m in mapped):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == "vmap":
            names = [ast.unparse(a) for a in node.args]
            if len(names) != len(mapped) or node.keywords:
                return None
            in_axes = ast.parse(repr(tuple(axes)), mode="eval").body
            node.func.keywords = [k for k in node.func.keywords if k.arg != "in_axes"] + \
                [ast.keyword("in_axes", in_axes)]
            node.func.args = node.func.args[:1]
            return ast.unparse(tree)
    return None


# ------------------------------------------------------------------ cond/switch branch types
# JAX's text (lax.cond's _check_branch): "The output of true_fun [at path P] has type T0 but the
# corresponding output of false_fun has type T1, so the dtypes do not match."
_BRANCH_NAMES = re.compile(r"^(.+?) is (.+?)(?: at \S+)?$", re.M)
_BRANCH_TYPES = re.compile(r"The output of (.+?)(?: at path (\S+))? has type (\S+) but the "
                           r"corresponding output of (.+?) has type (\S+), so the "
                           r"(shapes|dtypes) do not match")


def _is_branch_types(e) -> bool:
    return isinstance(e, TypeError) and _BRANCH_TYPES.search(str(e)) is not None and \
        re.match(r"(cond|switch) branches must have equal output types", str(e)) is not None


def _branch_card(exc, where, called_from) -> ErrorCard:
    text = str(exc)
    api = text.split()[0]
    first, path, type0, other, type1, mismatch = _BRANCH_TYPES.search(text).groups()
    funs = dict(_BRANCH_NAMES.findall(text.split("\n\n")[1]))
    other_fun = funs.get(other, other)
    at = f" at path {path}" if path else ""
    if mismatch == "dtypes":
        # cast toward the type both promote to (an int branch to the float one's, not back)
        dtype = str(dtypes.promote_types(type0.split("[")[0], type1.split("[")[0]))
        cast = [(n, funs.get(n, n)) for n, t in ((first, type0), (other, type1))
                if t.split("[")[0] != dtype]
        fix = (f"Return {dtype}{at} from every branch: .astype(jnp.{dtype}) in "
               f"{' and '.join(n for n, _ in cast)}.")
        rewrite = "\n".join(f"# in {n} ({f}), return {dtype}:\nreturn result.astype(jnp.{dtype})"
                            for n, f in cast)
        both = "promotes both to one dtype"
    else:
        fix = f"Make {other} return{at} the shape {first} returns, {_shape_of(type0)}."
        rewrite = f"# in {other} ({other_fun}), return the shape {first} returns:\n" + \
            _branch_shape_return(type0, type1)
        both = "broadcasts them"
    if api == "cond" and (mismatch == "dtypes" or _broadcasts(type1, type0)):
        rewrite += (f"\n# or, if computing both branches is fine, jnp.where {both}:\n"
                    f"y = jnp.where(pred, true_value, false_value)")
    return ErrorCard(
        "branch-types", f"{api}: the branches return different types",
        why=(f"{api} traces every branch into one program and picks one when it runs, so each "
             f"must return the same structure, shapes and dtypes: {first} returns {type0}{at}, "
             f"{other} {type1}."),
        fix=fix, rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"api": api, "branches": [[first, funs.get(first, first), type0],
                                         [other, other_fun, type1]],
                "path": path, "mismatch": mismatch},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{api}.html")


def _broadcasts(type_from, type_to) -> bool:
    """Whether an array of type_from's shape broadcasts to type_to's ('f32[1]' to 'f32[2]')."""
    a, b = _dims(type_from), _dims(type_to)
    return len(a) <= len(b) and all(x in (1, y) for x, y in zip(reversed(a), reversed(b)))


def _branch_shape_return(want, got) -> str:
    """Code giving a branch's result the shape `want`, one that works from `got`: broadcast
    (a size-1 or missing axis), pad with zeros (shorter) or slice (longer) along one axis."""
    shape = _shape_of(want)
    if _broadcasts(got, want):
        return f"return jnp.broadcast_to(result, {shape})"
    a, b = _dims(got), _dims(want)
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y] if len(a) == len(b) else []
    if len(differ) == 1:
        i = differ[0]
        if a[i] < b[i]:
            pads = [(0, b[i] - a[i]) if j == i else (0, 0) for j in range(len(a))]
            return f"return jnp.pad(result, {pads})    # zeros after"
        index = ", ".join([":"] * i + [f":{b[i]}"])
        return f"return result[{index}]"
    return f"# (compute it so that its shape is {shape})"


# ------------------------------------------------------------------ loop carry
# JAX's texts (lax/_cf_util.check_carry): the leaf named by the body's parameter and its path
# ("component c['x']"), by its path alone, or the whole carry ("c", or nothing)
_CARRY_LEAF = r"[Tt]he input carry(?: component (\w+)(\S*)| at path (\S+)| (\w+))?"
_CARRY_TYPES = re.compile(_CARRY_LEAF + r" has type (\S+) but the corresponding output carry "
                          r"component has type (\S+), so the (shapes|dtypes) do not match")
_CARRY_TREES = re.compile(_CARRY_LEAF + r" is an? (.+?) but the corresponding component of the "
                          r"carry output is an? (.+?), so |the input tree structure is:\n(.+)\n"
                          r"the output tree structure is:\n(.+)\n")


def _carry_card(exc, where, called_from) -> ErrorCard:
    text = str(exc)
    loop = text.split()[0] if text.split()[0] in ("scan", "while_loop", "fori_loop") else "loop"
    body = _loop_body_name(where) or "body"
    types, trees = _CARRY_TYPES.search(text), _CARRY_TREES.search(text)
    whole = None                   # the body's own name for the carry, where it is one value
    if types:
        _, sub_path, path, whole, came, went, mismatch = types.groups()
        path = sub_path or path or None
    elif trees:
        _, sub_path, path, _, came, went, tree_in, tree_out = trees.groups()
        path, mismatch = sub_path or path or None, "structure"
        came, went = (came, went) if came else (tree_in, tree_out)
    else:
        came, went, path, mismatch = "?", "?", None, "structure"
    leaf = f"carry{path or ''}"
    ys = ", y" if loop == "scan" else ""        # (a while_loop's body returns the carry alone)
    if mismatch == "dtypes":
        dtype_in, dtype_out = came.split("[")[0], went.split("[")[0]
        back = (f"return new_carry.astype(jnp.{dtype_in}){ys}" if path is None else
                f"value = value.astype(jnp.{dtype_in})   # the value {body} returns as {leaf}")
        rewrite = (f"# in {body}, give {leaf} back with the type it came in as:\n{back}\n"
                   f"# or start it with the type {body} returns, e.g. "
                   f"jnp.asarray(init, jnp.{dtype_out})")
    elif mismatch == "shapes":
        rewrite = _carry_shape_rewrite(body, leaf, came, went, loop, ys, whole or "carry")
        if "cannot grow" not in rewrite:     # (a growing carry outgrows any start shape)
            rewrite += (f"\n# or start it with the shape {body} returns: "
                        f"jnp.zeros({_shape_of(went)}, jnp.{went.split('[')[0]})")
    else:
        rewrite = (f"# in {body}, return the carry with the same structure as the initial "
                   f"carry:\nreturn carry{ys}      # carry: {came}, not {went}")
    return ErrorCard(
        "loop-carry", f"{loop}: the carry changes type in the loop",
        why=(f"{loop} compiles {body} once for every iteration, so the carry must leave it "
             f"with the type it came in with: {leaf} came in as {came} and left as {went}."),
        fix=f"Make {body} return a carry of the same structure, shapes and dtypes as it takes.",
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin={"loop": loop, "body": body, "path": path, "input_type": came,
                "output_type": went, "mismatch": mismatch},
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.lax.{loop}.html"
        if loop != "loop" else None)


def _carry_shape_rewrite(body, leaf, came, went, loop, ys, carry) -> str:
    """Code keeping the carry's shape: broadcast back a value that lost dimensions; a carry
    that grows (jnp.append in the body) cannot: the values go out as scan's ys, or into a
    buffer made at its final size (`new_carry.sum()` was advised, whose shape is ())."""
    dims_in, dims_out = _dims(came), _dims(went)
    head = f"# in {body}, keep {leaf} at shape {_shape_of(came)}, as it came in:\n"
    if len(dims_out) < len(dims_in):
        return head + f"return jnp.broadcast_to(new_carry, {_shape_of(came)}){ys}"
    if len(dims_out) == len(dims_in) and all(o >= i for i, o in zip(dims_in, dims_out)):
        if loop == "scan":     # (`carry`: the body's own name for it, else a NameError)
            return (f"# a carry cannot grow: give each new value out as scan's ys (stacked "
                    f"for you)\nreturn {carry}, x    # x: the value it appended")
        return (f"# a carry cannot grow: make the buffer at its final size and write into "
                f"it\nbuffer = buffer.at[i].set(value)")
    return head + f"# (compute {leaf} so that its shape stays {_shape_of(came)})"


def _dims(type_text) -> list:
    return [int(d) for d in type_text.partition("[")[2].rstrip("]").split(",")
            if d.strip().isdigit()]


def _shape_of(type_text) -> str:
    dims = type_text.partition("[")[2].rstrip("]")
    parts = [d for d in dims.split(",") if d]
    return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"


def _loop_body_name(where) -> str | None:
    """The body function's name in the user's `lax.scan(body, ...)`-style call."""
    tree = _parse_line(where)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            name = ast.unparse(node.func).split(".")[-1]
            index = {"scan": 0, "while_loop": 1, "fori_loop": 2}.get(name)
            if index is not None and len(node.args) > index:
                return ast.unparse(node.args[index])
    return None


# ------------------------------------------------------------------ which card
def _is_carry_error(e) -> bool:
    return isinstance(e, TypeError) and "carry input and carry output must have" in str(e)


# ------------------------------------------------------------------ fixed shapes and values
def _boolean_index_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "boolean-index", "A boolean mask would give a result of unknown size",
        why=("x[mask] keeps as many elements as the mask has True values; under jit the mask "
             "is traced (no values yet), so the result's shape is unknown, and every shape "
             "must be known while tracing."),
        fix=("Keep the shape: jnp.where(mask, x, fill) keeps every element and replaces the "
             "others; a reduction takes where= (x.sum(where=mask)); jnp.nonzero(mask, "
             "size=N, fill_value=0) gives at most N indices."),
        rewrite=_mask_rewrite(where), where=_public(where), called_from=_public(called_from),
        docs=_DOCS + "NonConcreteBooleanIndexError")


def _is_size_needed(e) -> bool:
    """jnp.nonzero, a one-argument jnp.where, jnp.unique, ... of traced data: JAX's
    ConcretizationTypeError naming the size argument (their result's size is the data's)."""
    return isinstance(e, jx_errors.ConcretizationTypeError) and "size argument" in str(e)


def _size_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "data-dependent-size", "The result's size depends on the data",
        why=("This call returns one element per True value (or per distinct value); under jit "
             "the data is traced (no values yet), so the result's size is unknown, and every "
             "shape must be known while tracing."),
        fix=("Give size=N, a size known in advance (the input's size always suffices): at "
             "most N results, the unused slots filled with fill_value. Or keep the shape: "
             "jnp.where(mask, x, fill) with three arguments, or a reduction with where=."),
        rewrite=_size_rewrite(where), where=_public(where), called_from=_public(called_from),
        origin=_origin(exc), docs=_DOCS + "ConcretizationTypeError")


# the jnp functions (and Array methods) whose result has as many elements as the data says
_SIZED = {"where", "nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
          "unique_counts", "unique_inverse", "unique_all"}


def _size_rewrite(where) -> str:
    """The user's line with size= given to its call (the data's size: always enough), or the
    pattern where the line has no such call."""
    code = (where or {}).get("code") or ""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SIZED and all(k.arg != "size" for k in node.keywords)
                and (node.func.attr != "where" or len(node.args) == 1)):
            continue
        data = node.args[0] if node.args else node.func.value      # x.nonzero(): x
        name = next((n.id for n in ast.walk(data) if isinstance(n, ast.Name)
                     and n.id not in ("jnp", "np", "jax")), None)
        old = ast.get_source_segment(code, node)
        if name is None or old is None:
            continue
        unique = node.func.attr.startswith("unique")
        extra = f"size={name}.size" + ("" if unique else ", fill_value=-1")
        new = old[:-1] + (", " if node.args or node.keywords else "") + extra + ")"
        said = (f"    # {name}.size slots: enough for every distinct value" if unique else
                f"    # at most {name}.size indices; unused ones are -1")
        keep = (f"\n# or keep the shape: jnp.where({ast.get_source_segment(code, data)}, "
                f"{name}, 0)" if node.func.attr == "where" else "")
        return code.replace(old, new, 1) + said + keep
    return ("idx = jnp.nonzero(mask, size=mask.size, fill_value=-1)    # at most mask.size "
            "indices; unused ones are -1")


# `x[x > 0]`, `v[mask]`: the array and the mask of a boolean index on the user's line
_MASKED = re.compile(r"(?P<array>[A-Za-z_][\w.]*)\[(?P<mask>[^\[\]]*(?:[<>]=?|==|!=)[^\[\]]*"
                     r"|(?=\w*mask)[A-Za-z_]\w*)\]")


def _mask_rewrite(where) -> str:
    """The user's line with its boolean index kept to one shape, or the pattern."""
    code = (where or {}).get("code") or ""
    found = _MASKED.search(code)
    if found is None:
        return "y = jnp.where(mask, x, 0)    # same shape as x: 0 where the mask is False"
    array, mask = found.group("array"), found.group("mask").strip()
    line = code[:found.start()] + f"jnp.where({mask}, {array}, 0)" + code[found.end():]
    return (f"{line}    # same shape as {array}: 0 where the mask is False\n"
            f"# or, for a sum or mean of the kept elements: {array}.sum(where={mask})")


def _immutable_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "immutable-array", "JAX arrays cannot be changed in place",
        why=("x[i] = v writes into an array, but JAX arrays are immutable (a traced one is "
             "not even memory yet): each update makes a new array."),
        fix=("Use x = x.at[i].set(v) (x[i] += v: .add(v); also .subtract, .multiply, .divide, "
             ".min, .max): a new array, bound to x."),
        rewrite=_at_rewrite(where), where=_public(where), called_from=_public(called_from),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


# `x[0] = 1.0`, `x[i] += v`: an item assignment on the user's line
_ASSIGNED = re.compile(r"^(?P<indent>\s*)(?P<array>[A-Za-z_][\w.]*)\[(?P<index>.+)\]\s*"
                       r"(?P<op>[-+*/]?)=\s*(?P<value>[^=].*)$")
_AT_METHOD = {"": "set", "+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


def _at_rewrite(where) -> str:
    """The user's assignment as an .at[] update, or the pattern."""
    found = _ASSIGNED.match((where or {}).get("code") or "")
    if found is None:
        return "x = x.at[i].set(v)    # a new array; .add(v) for x[i] += v"
    array, index, value = found.group("array"), found.group("index"), found.group("value")
    method = _AT_METHOD[found.group("op")]
    return f"{array} = {array}.at[{index}].{method}({value})    # a new array, bound to {array}"


def _key_reuse_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "key-reuse", "A random key was used twice",
        why=("The same key gives the same numbers every time it is used: two draws from one "
             "key are not independent (jax_debug_key_reuse found this one)."),
        fix=("Split the key, one new key per use: k1, k2 = jax.random.split(key); keep a key "
             "to split again later as the first of the split (key, sub = split(key))."),
        rewrite=("key, k1, k2 = jax.random.split(key, 3)    # one key per draw, and one to "
                 "keep\na = jax.random.normal(k1)\nb = jax.random.normal(k2)"),
        where=_public(where), called_from=_public(called_from),
        docs=_DOCS + "KeyReuseError")


_IMMUTABLE = "JAX arrays are immutable and do not support in-place item assignment"


# ------------------------------------------------------------------ traced slice bounds
def _is_traced_slice(e) -> bool:
    return isinstance(e, IndexError) and str(e).startswith(
        "Slice entries must be static integers")


def _slice_card(exc, where, called_from) -> ErrorCard:
    """`x[:n]` or `x[i:i + 2]` with a traced bound: every shape is fixed while tracing, so a
    traced start needs a fixed size (lax.dynamic_slice_in_dim), and a traced size a static
    argument, or the whole shape kept with a mask (JAX's gotchas: "the size of slices can't
    be functions of argument values")."""
    origin = _origin(exc)
    rewrite = _slice_rewrite(where)
    static = _static_fix(origin, where, exc)
    rewrite += _or_static(origin, static, "int")
    return ErrorCard(
        "traced-slice", "A slice bound is traced",
        why=(f"A slice's size sets its result's shape, which must be known while tracing, but "
             f"this bound comes from {_traced_phrase(origin)}."),
        fix=("A traced start with a fixed size: lax.dynamic_slice_in_dim(x, start, size). A "
             "traced size: keep the whole shape and mask it (jnp.where(jnp.arange(len) < n, x, "
             "0)), or make the argument static." + ("" if static else _array_note(origin))),
        rewrite=rewrite, where=_public(where), called_from=_public(called_from),
        origin=origin, docs="https://docs.jax.dev/en/latest/notebooks/"
                            "Common_Gotchas_in_JAX.html#dynamic-shapes")


def _slice_rewrite(where) -> str:
    """The user's line with its slice of a traced bound rewritten: `x[i:i + 2]` as a
    dynamic slice of size 2, `x[:n]` / `x[n:]` as the whole of x, masked; else the
    pattern."""
    code = (where or {}).get("code") or ""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and \
                node.slice.step is None:
            text, note = _one_slice(ast.unparse(node.value), node.slice)
            segment = ast.get_source_segment(code, node)
            if text and segment:
                return f"{code.replace(segment, text, 1)}    # {note}"
    return "y = lax.dynamic_slice_in_dim(x, start, size)   # start traced, size a Python int"


def _one_slice(array, s) -> tuple:
    """(the slice `array[s]` written with a static shape, a note on what it gives), or ("",
    "")."""
    lower = ast.unparse(s.lower) if s.lower is not None else None
    upper = s.upper
    if lower is not None and isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add):
        for a, b in ((upper.left, upper.right), (upper.right, upper.left)):
            if ast.unparse(a) == lower and isinstance(b, ast.Constant) and \
                    type(b.value) is int:
                return (f"lax.dynamic_slice_in_dim({array}, {lower}, {b.value})",
                        f"size {b.value}, the start traced")
    index = f"jnp.arange({array}.shape[0])"
    note = f"the shape of {array}: 0 outside the slice"
    if lower is None and upper is not None:
        return f"jnp.where({index} < {ast.unparse(upper)}, {array}, 0)", note
    if lower is not None and upper is None:
        return f"jnp.where({index} >= {lower}, {array}, 0)", note
    return "", ""


# ------------------------------------------------------------------ a seed where a key goes
def _is_seed_as_key(e) -> bool:
    return isinstance(e, TypeError) and str(e).startswith(
        "JAX encountered invalid PRNG key data")


def _seed_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "seed-as-key", "A random function was given a seed, not a key",
        why=("jax.random's functions take a key, made once from a seed (jax.random.key(0)); "
             "a plain number or a 0-d array is not one."),
        fix=("Make a key from the seed, then split it for each new use (the same key gives "
             "the same numbers)."),
        rewrite=_key_rewrite(where), where=_public(where), called_from=_public(called_from),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


def _key_rewrite(where) -> str:
    """The user's call of jax.random.<fn>(seed, ...) with the seed made a key, through the
    same module name (`random.normal(0)` after `from jax import random`: random.key)."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if func.rpartition(".")[0].endswith("random") and call.args:
            seed = ast.unparse(call.args[0])
            module = func.rpartition(".")[0]
            segment = ast.get_source_segment(where["code"], call.args[0])
            if segment:
                line = where["code"].replace(segment, f"{module}.key({seed})", 1)
                return f"{line}    # a key from the seed; split it for the next draw"
    return ("key = jax.random.key(0)              # once, from a seed\n"
            "key, sub = jax.random.split(key)     # a new key for each use\n"
            "x = jax.random.normal(sub, (3,))")


# ------------------------------------------------------------------ grad of an integer input
def _is_int_grad_input(e) -> bool:
    text = str(e)
    return isinstance(e, TypeError) and " requires real- or complex-valued inputs" in text \
        and re.search(r"but got u?int\d+\.", text) is not None


def _int_grad_card(exc, where, called_from) -> ErrorCard:
    # JAX's own advice (vjp, allow_int=True) gives a float0 zero, not a slope: a learner who
    # wrote grad(f)(3) wanted the slope at 3.0
    return ErrorCard(
        "integer-grad-input", "grad was given an integer to differentiate by",
        why=("A derivative is taken with respect to float inputs; an int (a Python int such as "
             "3, or an int array) has none. allow_int=True only gives a zero of dtype float0, "
             "not a slope."),
        fix=("A number to differentiate by: pass it as a float (3.0, or "
             "jnp.asarray(x, jnp.float32)). An int that only counts or indexes (a leaf of "
             "params, say): pass it as another argument, which grad does not differentiate "
             "(argnums=0 by default)."),
        rewrite=_float_input_rewrite(where), where=_public(where),
        called_from=_public(called_from), docs=None)


def _float_input_rewrite(where) -> str:
    """The user's call with its int literal arguments written as floats (3 -> 3.0)."""
    tree = _parse_line(where)
    code = (where or {}).get("code") or ""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call):   # grad(f)(3)
            ints = [a for a in call.args if isinstance(a, ast.Constant)
                    and type(a.value) is int]
            if ints:
                line = code
                for arg in reversed(ints):           # right to left: offsets stay valid
                    start, end = arg.col_offset, arg.end_col_offset
                    line = line[:start] + f"{arg.value}.0" + line[end:]
                return f"{line}    # a float input: grad differentiates it"
    return ("x = jnp.asarray(x, jnp.float32)    # a float input: grad differentiates it\n"
            "# an int that counts or indexes: a second argument, left alone (argnums=0)\n"
            "grads = jax.grad(loss)(params, n)")


# ------------------------------------------------------------------ @jax.jit on a method
_METHOD_SELF = re.compile(r"^Error interpreting argument to <function ([\w.<>]+)\.(\w+) at "
                          r"0x[0-9a-f]+> as an abstract array\. The problematic value is of "
                          r"type <class '([\w.<>]+)'> and was passed to the function at path "
                          r"self\.")


def _is_method_self(e) -> bool:
    return isinstance(e, TypeError) and hasattr(e, "value") and \
        _METHOD_SELF.match(str(e)) is not None and hasattr(e.value, "__dict__")


def _method_card(exc, where, called_from) -> ErrorCard:
    """`@jax.jit` on a method: `self` is traced, and an object is no array. JAX's gotchas
    page gives three ways; the card writes the pytree registration for this class (its
    arrays traced, its other fields static, so a changed field recompiles), and says when
    a static `self` is right (it silently keeps a stale compile otherwise)."""
    _, method, type_path = _METHOD_SELF.match(str(exc)).groups()
    cls_name = type_path.rsplit(".", 1)[-1]
    return ErrorCard(
        "jit-method", "A jitted method was given self, which is not an array",
        why=(f"@jax.jit on {cls_name}.{method} traces every argument, self too, and a "
             f"{cls_name} is neither an array nor a pytree of arrays."),
        fix=(f"Make {cls_name} a pytree: its arrays become traced inputs and its other fields "
             f"static data, so changing one recompiles. Or jit a helper function of the arrays, "
             f"its flags in static_argnames. static_argnums=0 (self static) is right only if "
             f"{cls_name} hashes and compares by its fields: otherwise a changed field reuses "
             f"the old compile, silently."),
        rewrite=pytree_registration(exc.value),
        where=_public(where), called_from=_public(called_from),
        docs="https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
             "#using-jax-jit-with-class-methods")


def pytree_registration(obj) -> str:
    """Code registering `type(obj)` as a pytree: its numbers and arrays traced (children), its
    other fields (bools, strings, ...) static (aux data); rebuilt by its constructor when
    that takes exactly its fields, else field by field."""
    cls = type(obj).__name__
    fields = list(vars(obj))
    traced = [f for f in fields if _is_traceable(getattr(obj, f))]
    static = [f for f in fields if f not in traced]
    try:
        params = list(inspect.signature(type(obj)).parameters)
    except (TypeError, ValueError):
        params = []
    if sorted(params) == sorted(fields):
        rebuild = f"    return {cls}({', '.join(f'{f}={f}' for f in fields)})"
    else:
        rebuild = (f"    obj = object.__new__({cls})\n"
                   f"    obj.__dict__.update({', '.join(f'{f}={f}' for f in fields)})\n"
                   f"    return obj")
    return (f"def _flatten(obj):        # traced fields, then static ones\n"
            f"    return {_tuple(f'obj.{f}' for f in traced)}, "
            f"{_tuple(f'obj.{f}' for f in static)}\n\n"
            f"def _unflatten(static, traced):\n"
            f"    {_tuple(traced)}, {_tuple(static)} = traced, static\n"
            f"{rebuild}\n\n"
            f"jax.tree_util.register_pytree_node({cls}, _flatten, _unflatten)   # keep @jax.jit")


def _tuple(items) -> str:
    """Python's tuple display: `()`, `(a,)`, `(a, b)`."""
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _is_traceable(value) -> bool:
    """A number or an array: what jit can trace (a bool, a string, None: static data)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float, complex)) or (
        hasattr(value, "shape") and hasattr(value, "dtype"))


_BUILDERS = [
    (lambda e: isinstance(e, jx_errors.TracerBoolConversionError), _bool_card),
    (_is_size_needed, _size_card),          # before the general concretization card
    (lambda e: isinstance(e, (jx_errors.ConcretizationTypeError,
                              jx_errors.TracerIntegerConversionError)), _concretization_card),
    (_is_traced_shape_error, _concretization_card),
    (lambda e: isinstance(e, jx_errors.TracerArrayConversionError), _array_card),
    (lambda e: isinstance(e, jx_errors.UnexpectedTracerError), _leaked_card),
    (lambda e: isinstance(e, ValueError) and _UNHASHABLE.match(str(e)) is not None,
     _unhashable_card),
    (lambda e: isinstance(e, ValueError) and
     str(e).startswith("vmap got inconsistent sizes") and _VMAP_AXIS.search(str(e)) is not None,
     _vmap_card),
    (_is_carry_error, _carry_card),
    (_is_branch_types, _branch_card),
    (lambda e: isinstance(e, jx_errors.NonConcreteBooleanIndexError), _boolean_index_card),
    (lambda e: isinstance(e, TypeError) and str(e).startswith(_IMMUTABLE), _immutable_card),
    (lambda e: isinstance(e, jx_errors.KeyReuseError), _key_reuse_card),
    (_is_method_self, _method_card),
    (_is_traced_slice, _slice_card),
    (_is_seed_as_key, _seed_card),
    (_is_int_grad_input, _int_grad_card),
]


# ------------------------------------------------------------------ rendering
def _place(location) -> str:
    return f"{location['file']}, line {location['line']}, in {location['function']}"


def origin_lines(card) -> list:
    """The origin as text lines: the input, then each operation to the value."""
    origin = card.origin or {}
    if card.kind == "vmap-sizes":
        return [f"{a['name']}: {a['type']}, mapped along axis {a['axis']} (size {a['size']})"
                for a in origin["arguments"]]
    if card.kind == "loop-carry":
        return [f"{origin['body']}: carry{origin['path'] or ''} came in as "
                f"{origin['input_type']}, left as {origin['output_type']}"]
    if card.kind == "branch-types":
        return [f"{name} ({fun}) returns {type_}" for name, fun, type_ in origin["branches"]]
    if card.kind == "unhashable-static":
        return [f"static argument {origin['argument']} of {origin['function']}: "
                f"{origin['value_type']} {origin['value']}"]
    steps = origin.get("steps") or []
    if not origin.get("input_type") and steps:      # made from constants (JAX: "This value
        lines = [f"no argument: made from constants by jnp operations in "   # became a tracer")
                 f"{origin['function']}, traced for {origin['transformation']}"]
    elif not origin.get("input_type"):
        return []
    else:
        which = f"argument {origin['argument']}" if origin.get("argument") else \
            f"input {origin['input_index']}"
        lines = [f"{which}: {origin['input_type']} of {origin['function']}, "
                 f"traced for {origin['transformation']}"]
    if len(steps) > _MAX_STEPS:
        lines.append(f"  … {len(steps) - _MAX_STEPS} operations")
    lines += [f"  → {s['primitive']} → {s['type']}" + (f"   ({s['where']}: {s['code']})"
                                                       if s["where"] and s["code"] else "")
              for s in steps[-_MAX_STEPS:]]
    return lines


def render_text(card: ErrorCard) -> str:
    """The card as plain text (terminal IPython, scripts)."""
    lines = [f"{card.error}: {card.title}"] + ([f"  {card.message}"] if card.message else [])
    if card.where:
        lines.append(f"  at {_place(card.where)}:  {card.where['code']}")
    if card.called_from:
        lines.append(f"  called from {_place(card.called_from)}:  {card.called_from['code']}")
    found = origin_lines(card)
    if found:
        lines += ["  where it came from:"] + ["    " + s for s in found]
    lines += [f"  why: {card.why}", f"  fix: {card.fix}", "  try:"]
    lines += ["    " + s for s in card.rewrite.splitlines()]
    if card.docs:
        lines.append(f"  see {card.docs}")
    if card.traceback:                  # no folding in text: IPython's %tb prints it whole
        lines.append("  (%tb shows the whole traceback)")
    return "\n".join(lines)


_BOX = ("border-left:4px solid var(--jp-error-color1, #b00020);padding:6px 10px;margin:4px 0;"
        "background:var(--jp-layout-color2, #f7f7f7);font-family:var(--jp-ui-font-family, "
        "sans-serif);font-size:90%")
_CODE = ("background:var(--jp-layout-color0, #fff);border:1px solid var(--jp-border-color2, "
         "#ddd);padding:4px 6px;margin:2px 0;white-space:pre;overflow-x:auto")


def render_html(card: ErrorCard) -> str:
    """The card as static HTML (no script needed: works in nbconvert's export); every text
    from the user's code or the error is escaped."""
    parts = [f"<div class='jx-error-card jx-error-{esc(card.kind)}' style='{_BOX}'>",
             f"<div style='font-weight:bold'>{esc(card.error)}: {esc(card.title)}</div>",
             f"<div class='jx-error-message'>{esc(card.message)}</div>"]
    for label, location in (("at", card.where), ("called from", card.called_from)):
        if location:
            parts.append(f"<div>{label} <b>{esc(_place(location))}</b>: "
                         f"<code>{esc(location['code'])}</code></div>")
    found = origin_lines(card)
    if found:
        items = "".join(f"<li><code>{esc(s.strip())}</code></li>" for s in found)
        parts.append(f"<div>where it came from:<ul style='margin:2px 0'>{items}</ul></div>")
    parts += [f"<div><b>why</b>: {esc(card.why)}</div>",
              f"<div><b>fix</b>: {esc(card.fix)}</div>",
              f"<pre class='jx-rewrite' style='{_CODE}'>{esc(card.rewrite)}</pre>"]
    if card.docs:
        parts.append(f"<div><a href='{esc(card.docs)}' target='_blank'>{esc(card.docs)}</a></div>")
    if card.traceback:
        parts.append(f"<details class='jx-error-traceback'><summary>traceback and the whole "
                     f"message</summary><pre style='{_CODE}'>{esc(card.traceback)}</pre>"
                     f"</details>")
    return "".join(parts) + "</div>"
