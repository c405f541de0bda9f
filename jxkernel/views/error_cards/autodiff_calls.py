"""Cards for JAX's forward- and reverse-mode calls used the way grad is:

- `jax.jvp(f, x, v)`: jvp takes the primals and the tangents each as a tuple (one entry per
  argument of f), "primal and tangent arguments to jax.jvp must be tuples or lists; found
  ArrayImpl and ArrayImpl."; the rewrite wraps them, `jax.jvp(f, (x,), (v,))`;
- `jax.vjp(f, x)(v)` (and `jax.linearize(f, x)(v)`): vjp returns the output and the function,
  a pair, which Python refuses to call ("'tuple' object is not callable"); the rewrite
  unpacks the pair first.
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _called, _parse_line, _replaced

_NOT_TUPLES = re.compile(r"^primal and tangent arguments to jax\.jvp must be tuples or lists; "
                         r"found (\w+) and (\w+)\.$")
_PAIRS = {"vjp": ("f_vjp", "the function that pulls a cotangent back to the inputs"),
          "linearize": ("f_jvp", "the linear function that pushes a tangent forward")}


# ------------------------------------------------------------------ jvp's tuples
def _jvp_call(tree):
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) == "jvp" and len(call.args) == 3:
            return call
    return None


def _is_jvp_tuples(e) -> bool:
    if not (isinstance(e, TypeError) and _NOT_TUPLES.match(str(e))):
        return False
    where, _ = _user_lines(e)
    return _jvp_call(_parse_line(where)) is not None


def _as_tuple(node):
    """`node` as jvp wants it: a tuple or list as it is, else a tuple of one."""
    return node if isinstance(node, (ast.Tuple, ast.List)) else ast.Tuple([node], ast.Load())


def _jvp_tuples_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _jvp_call(tree)
    fun, primals, tangents = call.args
    new = ast.Call(call.func, [fun, _as_tuple(primals), _as_tuple(tangents)], call.keywords)
    return ErrorCard(
        "jvp-tuples", "jax.jvp takes its primals and its tangents as tuples",
        why=("jax.jvp(f, primals, tangents) takes one tuple of f's arguments and one tuple of "
             "their tangents (a tuple of one for a function of one argument), since f may "
             "take several; grad takes f's arguments themselves."),
        fix="Wrap each in a tuple: jax.jvp(f, (x,), (v,)).",
        rewrite=f"{_replaced(tree, call, new)}    # a tuple of primals, a tuple of tangents",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jvp.html")


# ------------------------------------------------------------------ vjp's pair called
def _pair_called(tree):
    """The line's call of what vjp (or linearize) returned, `jax.vjp(f, x)(v)`, or None."""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call) and \
                _called(call.func) in _PAIRS:
            return call
    return None


def _is_pair_called(e) -> bool:
    if not (isinstance(e, TypeError) and str(e) == "'tuple' object is not callable"):
        return False
    where, _ = _user_lines(e)
    return _pair_called(_parse_line(where)) is not None


def _pair_called_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _pair_called(tree)
    name = _called(call.func)
    function, what = _PAIRS[name]
    made = ast.unparse(call.func)
    used = ast.Call(ast.Name(function), call.args, call.keywords)
    line = where["code"]
    indent = line[:len(line) - len(line.lstrip())]
    return ErrorCard(
        "pair-called", f"jax.{name} returns a pair: the output, then {what.split(' that')[0]}",
        why=(f"jax.{name}(f, x) runs f and returns two things: f's output and {what}. The "
             f"line called the pair itself, which is no function."),
        fix=(f"Unpack the pair first, out, {function} = {made}, then call {function}."),
        rewrite=(f"{indent}out, {function} = {made}    # f's output, and {what}\n"
                 f"{indent}{_replaced(tree, call, used).lstrip()}"),
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.{name}.html")
