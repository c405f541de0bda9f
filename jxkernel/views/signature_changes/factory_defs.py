"""A def jitted by its decorator inside a factory and made anew by each call of it (`w =
make_step(lr)(w, g)` in a loop): where it can be written once at the top level, what it
closed over its parameters, in the learner's own lines (fresh_functions'
_FACTORY_AT_CALL_FIX), only where the rewrite keeps every result; else None, and
views/recompile_explainer.py gives the fix as a pattern.

    def make_step(lr):                          @jax.jit
        @jax.jit                                def step(w, g, lr):
        def step(w, g):                ->           return w - lr * g
            return w - lr * g
        return step                             w = step(w, g, lr)
    w = make_step(lr)(w, g)
"""
from __future__ import annotations

import ast
import inspect
import linecache
import re
import textwrap
import types

from ..argument_uses import uses
from ..source_edits import own_nodes, replaced
from .made_once import _assignment_above, _line_and_tree


def factory_at_the_call(fun, site):
    """The fill of fresh_functions' _FACTORY_AT_CALL_FIX where `fun` is a def jitted by its
    `@jax.jit` inside a factory (`def make_step(lr): @jax.jit def step(w, g): ...; return
    step`) whose call `site`'s line calls (`w = make_step(lr)(w, g)`), or calls a name bound
    to it on the line just above (`step = make_step(lr)`): `fun` written once at the top
    level, each value it closes over (a factory's parameter) a parameter more, traced where
    it is a number or an array only computed with, static where the code needs it as a
    Python value (a shape, an `if`) and it hashes; the call passing what the factory was
    given. None where it cannot be read so; the note then gives the fix as a pattern.

        >>> factory_at_the_call(lambda v: v, None) is None
        True
    """
    code, closure = getattr(fun, "__code__", None), getattr(fun, "__closure__", None) or ()
    outer_name, _, name = getattr(fun, "__qualname__", "").partition(".<locals>.")
    outer = getattr(fun, "__globals__", {}).get(outer_name)
    if site is None or code is None or not closure or name != fun.__name__ or \
            not isinstance(outer, types.FunctionType) or \
            code not in outer.__code__.co_consts or fun.__defaults__ or fun.__kwdefaults__:
        return None
    values = dict(zip(code.co_freevars, (c.cell_contents for c in closure)))
    params = inspect.signature(outer).parameters
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params.values()) or \
            not set(values) <= set(params) or set(values) & _stored_in(outer, name):
        return None
    closed = [k for k in params if k in values]
    kinds = {k: _parameter_kind(fun, k, values[k]) for k in closed}
    if None in kinds.values():
        return None
    static = [k for k in closed if kinds[k] != "traced"]
    written = _def_written_with(fun, closed, static)
    found = _factory_call(site, outer_name)
    if written is None or found is None:
        return None
    text, call, made, above, bound_name = found
    if name in fun.__globals__ and name != bound_name:
        return None                     # (the def at the top level would rebind another)
    try:
        bound = inspect.signature(outer).bind(*made.args, **{k.arg: k.value
                                                              for k in made.keywords})
    except TypeError:
        return None
    passed = [ast.unparse(bound.arguments[k]) if k in bound.arguments else
              _literal(params[k].default) for k in closed]
    if None in passed:
        return None
    given = [ast.unparse(a) for a in call.args] + [f"{k.arg}={ast.unparse(k.value)}"
                                                    for k in call.keywords]
    given += [f"{k}={v}" for k, v in zip(closed, passed)] if call.keywords else passed
    head = f"def {outer_name}({', '.join(params)}):"
    first, *rest = written.splitlines()
    return {"names": ", ".join(closed), "outer": outer_name, "fun": name, "line": site.line,
            "reading": _reading(name, closed, kinds), "them": _them(closed),
            "code": "\n".join([f"{first}    # once, at the top level (above `{head}`)",
                               *rest]),
            "call": replaced(text, [(call, f"{name}({', '.join(given)})")]),
            "dropped": "" if above is None else f"; line {above} deleted"}


def _parameter_kind(fun, name: str, value) -> str | None:
    """How a value `fun` closes over can be passed with the same results: "traced" (a number
    or an array only computed with), else the reason the code needs it as a Python value
    ("a shape or a size") where it hashes (static); None where neither holds."""
    use = uses(fun, name)
    if not use.found or use.passed:
        return None
    if not use.python:
        return "traced" if _computable(value) else None
    try:
        hash(value)
    except TypeError:
        return None
    return None if hasattr(value, "shape") else use.python[0]


def _reading(fun: str, closed: list, kinds: dict) -> str:
    """What the fix says of the values it makes parameters: `step only computes with lr`,
    `make needs n as a Python value (a shape or a size)`, and which are traced or static."""
    traced = [k for k in closed if kinds[k] == "traced"]
    static = [k for k in closed if kinds[k] != "traced"]
    said = []
    if static:
        why = sorted({kinds[k] for k in static})
        said.append(f"{fun} needs {', '.join(static)} as a Python value ({', '.join(why)}): "
                    f"static, one program per value, reused by every call given it")
    if traced:
        said.append(f"{fun} only computes with {', '.join(traced)}: traced, one program "
                    "for all values")
    return "; ".join(said)


def _them(closed: list) -> str:
    """`lr as a parameter`, `lr, b as parameters`, as the fix names them."""
    return f"{closed[0]} as a parameter" if len(closed) == 1 else \
        f"{', '.join(closed)} as parameters"


def _computable(value) -> bool:
    """Whether a value closed over can be a traced argument with the same results: a Python
    number or an array (not a bool, which an `if` may read; not a string, a tuple, an
    object)."""
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool) or \
        hasattr(value, "shape") and hasattr(value, "dtype")


def _stored_in(outer, inner: str) -> set:
    """The names `outer`'s own body assigns (its nested defs' bodies aside, `inner`'s name
    bound by its def aside): a factory's parameter it rebinds is not what the call gave."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(outer)))
    except (OSError, TypeError, SyntaxError):
        return {"*"}
    stored = set()
    for node in own_nodes(tree.body[0]):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored |= {node.name} - {inner}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stored.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stored.add("*")
    return stored


def _def_written_with(fun, more: list, static: list) -> str | None:
    """`fun`'s source, dedented, its one decorator a plain `@jax.jit` (or `@jit`), its
    parameters plain (no defaults, *args or keywords), with `more` added at the end of them
    and those of them `static` named static in the decorator; None for any other def."""
    try:
        lines, _ = inspect.getsourcelines(fun)
        source = textwrap.dedent("".join(lines))
        node = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    a = node.args if isinstance(node, ast.FunctionDef) else None
    if a is None or len(node.decorator_list) != 1 or \
            ast.unparse(node.decorator_list[0]) not in ("jax.jit", "jit") or \
            a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or \
            any(isinstance(n, (ast.Nonlocal, ast.Global)) for n in ast.walk(node)):
        return None
    lines = source.splitlines()
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    header = f"def {node.name}({', '.join([ast.unparse(p) for p in a.args] + more)}){returns}:"
    body = lines[node.body[0].lineno - 1:]
    if node.body[0].lineno == node.lineno:       # `def f(x): return x` on one line
        return None
    jit = ast.unparse(node.decorator_list[0])
    decorator = f"@{jit}" if not static else \
        f"@{jit}(static_argnames=({', '.join(repr(k) for k in static)},))"
    return "\n".join([decorator, header, *body])


def _factory_call(site, outer: str):
    """(the line at `site`, stripped; the call made there of the factory's result; the
    factory's call; the line number of `name = outer(...)` just above and that name, or None
    and None where the factory is called on the line itself: `outer(...)(...)`), or None."""
    read = _line_and_tree(site)
    if read is None:
        return None
    text, tree = read
    made = None
    above = _assignment_above(site)[1]
    if above is not None and isinstance(above.value, ast.Call) and \
            isinstance(above.value.func, ast.Name) and above.value.func.id == outer:
        made = above.targets[0].id
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        one_line = isinstance(call.func, ast.Call) and \
            isinstance(call.func.func, ast.Name) and call.func.func.id == outer
        bound = made is not None and isinstance(call.func, ast.Name) and call.func.id == made
        if not (one_line or bound):
            continue
        factory = call.func if one_line else above.value
        if bound and _calls_later(site, made):
            return None                 # (deleted above, the name's other calls would fail)
        if any(isinstance(a, ast.Starred) for a in call.args + factory.args) or \
                any(k.arg is None for k in call.keywords + factory.keywords):
            return None
        return (text, call, factory) + ((None, None) if one_line else (site.line - 1, made))
    return None


def _calls_later(site, name: str) -> bool:
    """Whether a line after `site`'s, in the block around it (as indented or more), calls
    `name`."""
    text = linecache.getline(site.file, site.line)
    indent, n = len(text) - len(text.lstrip()), site.line + 1
    while True:
        line = linecache.getline(site.file, n)
        if not line or line.strip() and len(line) - len(line.lstrip()) < indent:
            return False
        if re.search(rf"(?<![\w.]){re.escape(name)}\(", line):
            return True
        n += 1


def _literal(value) -> str | None:
    """A factory parameter's default written as Python, where it is a plain number."""
    return repr(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None
