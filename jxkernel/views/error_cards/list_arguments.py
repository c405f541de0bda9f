"""The card for a Python list or tuple given to a jnp function (`jnp.sum([1, 2, 3])`): JAX
refuses them where NumPy takes them, since each element of a list is a value of its own to
trace. The rewrite makes the argument an array with jnp.asarray, at its place on the line."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _parse_line, _replaced

# JAX's text (check_arraylike); jxkernel's hint follows on a line of its own
_LIST = re.compile(r"^(\w+) requires ndarray or scalar arguments, got <class '(list|tuple)'> "
                   r"at position (\d+)\.")


def _is_list_argument(e) -> bool:
    return isinstance(e, TypeError) and _LIST.match(str(e)) is not None


def _list_argument_card(exc, where, called_from) -> ErrorCard:
    name, kind, position = _LIST.match(str(exc)).groups()
    tree = _parse_line(where)
    argument = _argument(tree, name, int(position)) if tree is not None else None
    note = f"    # an array: one value for {name}"
    rewrite = (f"{_replaced(tree, argument, f'jnp.asarray({ast.unparse(argument)})')}{note}"
               if argument is not None else f"y = jnp.{name}(jnp.asarray(values)){note}")
    return ErrorCard(
        "list-argument", f"jnp.{name} was given a Python {kind}",
        why=(f"NumPy turns a {kind} into an array for you; JAX's functions do not, since "
             f"under jit, grad or vmap each element of a {kind} would be traced as a value of "
             f"its own (a {kind} of 1,000 numbers: 1,000 inputs), where an array is one."),
        fix=(f"Make it an array first: jnp.asarray(values) (or jnp.array). Where the {kind} "
             f"came from grad or vmap of a {kind} argument, pass that argument as an array "
             f"instead: jax.grad(f)(jnp.asarray(values))."),
        rewrite=rewrite, docs=None)


def _argument(tree, name, position):
    """The node of `name`'s argument at `position` on the user's line (a method call counts
    its object as position 0: `x.sum()` has none to rewrite), or None."""
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == name and \
                ast.unparse(func.value).split(".")[-1] in ("jnp", "numpy") and \
                position < len(call.args) and not isinstance(call.args[position], ast.Starred):
            return call.args[position]
    return None
