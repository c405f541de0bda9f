"""The code of a traced function that runs at each call of its program, not at its trace: the
functions it hands to a host callback (`jax.debug.callback(lambda v: log.append(v), x)`,
`jax.pure_callback(f, ...)`, `io_callback`). What they read or change is read or changed on
every call, so the notes that tell what a trace baked in (views/outside_values.py) or did once
(notebook/notes/effect_notes.py) leave them out. Read from the function's source; nothing is called.

    >>> import jxkernel as jax
    >>> log = []
    >>> def f(x):
    ...     jax.debug.callback(lambda v: log.append(v), x)
    ...     return x
    >>> sorted(run_at_each_call(f).names)
    ['log', 'v']
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
from typing import NamedTuple


class AtEachCall(NamedTuple):
    """What of a function's code runs at each call: `nodes`, the ids of the syntax nodes
    inside the functions given to callbacks (of `tree`, the function's parse); `names`, the
    names used only there or as the function given; `codes`, the code objects of the lambdas
    and defs given (by first line and name)."""
    tree: ast.AST | None
    nodes: frozenset
    names: frozenset
    codes: frozenset


NOTHING = AtEachCall(None, frozenset(), frozenset(), frozenset())


def _mentions_a_callback(code) -> bool:
    """Whether a code object (or one written inside it) names anything ending in 'callback':
    the cheap test before a parse (a traced function's code is read at each of its traces)."""
    if any(name.endswith("callback") for name in code.co_names):
        return True
    return any(_mentions_a_callback(c) for c in code.co_consts if isinstance(c, types.CodeType))


def run_at_each_call(function) -> AtEachCall:
    """AtEachCall of a function (a bound method's function), NOTHING where it gives no
    function to a callback or its source cannot be read."""
    function = getattr(function, "__func__", function)
    code = getattr(function, "__code__", None)
    if code is None or not _mentions_a_callback(code):
        return NOTHING
    try:
        lines, first = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return NOTHING
    given, given_names = _given(tree)
    inside = {id(n) for g in given for n in ast.walk(g)}
    used_inside = {n.id for g in given for n in ast.walk(g) if isinstance(n, ast.Name)}
    used_elsewhere = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
                      id(n) not in inside and not _is_given(n, given_names, tree)}
    codes = frozenset((first + g.lineno - 1, "<lambda>" if isinstance(g, ast.Lambda)
                       else g.name) for g in given)
    names = (used_inside | given_names) - used_elsewhere
    return AtEachCall(tree, frozenset(inside), frozenset(names), codes)


def _given(tree) -> tuple:
    """([the lambdas and defs handed to a callback], {the names handed}) of a syntax tree."""
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                                 ast.AsyncFunctionDef))}
    given, given_names = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callback_name(node.func):
            target = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "callback"), None)
            if isinstance(target, ast.Lambda):
                given.append(target)
            elif isinstance(target, ast.Name):
                given_names.add(target.id)
                if target.id in defs:
                    given.append(defs[target.id])
    return given, given_names


def inside_callbacks(tree) -> set:
    """The ids of the nodes of a syntax tree inside the functions it hands to callbacks.

        >>> tree = ast.parse("jax.debug.callback(lambda v: log.append(v), x)")
        >>> len(inside_callbacks(tree)) > 0
        True
    """
    return {id(n) for g in _given(tree)[0] for n in ast.walk(g)}


def _callback_name(func) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else ""
    return name.endswith("callback")


def _is_given(name_node, given_names, tree) -> bool:
    """Whether a Name is itself the function handed to a callback (`jax.debug.callback(record,
    x)`'s `record`): a use at each call, not at the trace."""
    if name_node.id not in given_names:
        return False
    return any(isinstance(n, ast.Call) and _callback_name(n.func) and n.args and
               n.args[0] is name_node for n in ast.walk(tree))


def is_given_code(code, at_each_call: AtEachCall) -> bool:
    """Whether a code object written inside the function is one handed to a callback."""
    return (code.co_firstlineno, code.co_name) in at_each_call.codes
