"""The card for a while_loop whose condition is one bool per element (`lambda c: c < 3` of a
vector carry): the loop runs as one, so its condition is one bool. The rewrite keeps each
element's own loop: jnp.any to go on while one element is not done, jnp.where so a finished
element stays as it is; or, for named functions, vmap of the loop (JAX's batching rule for
while_loop does the same). And the card for a condition that gives one number, not a bool
(`lambda c: c`, as Python's `while c:` reads): the rewrite says what Python means by it,
`c != 0`."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _first_call, _parse_line, _replaced

_PER_ELEMENT = re.compile(r"^cond_fun must return a boolean scalar, but got output type\(s\) "
                          r"\[ShapedArray\(bool\[([\d,]+)\]\)\]\.$")


_NOT_BOOL = re.compile(r"^cond_fun must return a boolean scalar, but got output type\(s\) "
                       r"\[ShapedArray\((\w+)\[\](?:, weak_type=True)?\)\]\.$")
# a condition's code that needs parentheses before `!= 0` (the rest binds tighter)
_LOOSE = (ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr)


def _is_while_not_bool(e) -> bool:
    return isinstance(e, TypeError) and _NOT_BOOL.match(str(e)) is not None


def _while_not_bool_card(exc, where, called_from) -> ErrorCard:
    dtype = _NOT_BOOL.match(str(exc)).group(1)
    return ErrorCard(
        "while-condition", f"while_loop's condition gave a {dtype} number, not a bool",
        why=(f"lax.while_loop runs its body while cond_fun returns True, and it takes only a "
             f"bool of shape (); this one returns a {dtype}[]. Python's `while c:` would read "
             f"a number as true when it is not zero; lax does not guess."),
        fix=("Compare to say when to go on: `c != 0` is what Python's `while c:` means; a "
             "test such as `c > tol` or `i < n` is usually what the loop is for."),
        rewrite=_not_bool_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html")


def _not_bool_rewrite(where) -> str:
    tree = _parse_line(where)
    call = _while_call(tree)
    if call is not None:
        cond = call.args[0]
        if isinstance(cond, ast.Lambda) and len(cond.args.args) == 1:
            test = ast.unparse(cond.body)
            test = f"({test})" if isinstance(cond.body, _LOOSE) else test
            fixed = f"lambda {cond.args.args[0].arg}: {test} != 0"
        elif isinstance(cond, (ast.Name, ast.Attribute)):
            fixed = f"lambda c: {ast.unparse(cond)}(c) != 0"
        else:
            fixed = None
        if fixed is not None:
            return f"{_replaced(tree, cond, fixed)}    # Python's `while c:` reads c != 0"
    return "state = lax.while_loop(lambda c: c != 0, body, state)    # or c > tol, i < n, ..."


def _while_call(tree):
    """The line's `lax.while_loop(cond, body, init)` call, or None."""
    return _first_call(tree, {"while_loop"}, 3)


def _is_while_per_element(e) -> bool:
    return isinstance(e, TypeError) and _PER_ELEMENT.match(str(e)) is not None


def _while_per_element_card(exc, where, called_from) -> ErrorCard:
    dims = _PER_ELEMENT.match(str(exc)).group(1).split(",")
    shape = f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"
    return ErrorCard(
        "while-per-element", "while_loop's condition gave one bool per element",
        why=(f"A while_loop runs its body for the whole carry until its condition is False, so "
             f"cond_fun returns one bool, of shape (); this one has shape {shape}."),
        fix=("To run each element until its own condition fails: go on while any element is "
             "not done (jnp.any), and leave finished elements as they are (jnp.where(cond, "
             "step, c) in the body); or vmap the loop over the elements, which does the same. "
             "For one decision for the whole carry, reduce the condition with jnp.all or "
             "jnp.any alone."),
        rewrite=_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html")


def _rewrite(where) -> str:
    tree = _parse_line(where)
    call = _while_call(tree)
    if call is not None:
        cond, body, init = call.args
        if all(isinstance(f, ast.Lambda) and len(f.args.args) == 1 and not f.args.vararg
               for f in (cond, body)) and cond.args.args[0].arg == body.args.args[0].arg:
            name = cond.args.args[0].arg
            test, step = ast.unparse(cond.body), ast.unparse(body.body)
            fixed = (f"{ast.unparse(call.func)}(lambda {name}: jnp.any({test}), "
                     f"lambda {name}: jnp.where({test}, {step}, {name}), {ast.unparse(init)})")
            return f"{_replaced(tree, call, fixed)}    # each element until its own test fails"
        if all(isinstance(f, (ast.Name, ast.Attribute)) for f in (cond, body)):
            fixed = (f"jax.vmap(lambda c: {ast.unparse(call.func)}({ast.unparse(cond)}, "
                     f"{ast.unparse(body)}, c))({ast.unparse(init)})")
            return f"{_replaced(tree, call, fixed)}    # one loop per element"
    return ("state = lax.while_loop(lambda c: jnp.any(test(c)), "
            "lambda c: jnp.where(test(c), step(c), c), state)")
