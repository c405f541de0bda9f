"""The card for an array of many booleans where Python needs one True or False: `if x > 0:`
of a vector, `a and b` of arrays, Python's max(v, 0.0) of a vector (NumPy's ValueError, which
JAX raises as NumPy does, traced or not)."""
from __future__ import annotations

import ast

from .card import ErrorCard
from .rewrites import _logical_rewrite, _node_at, _python_math_rewrite, _simple_if

_AMBIGUOUS = "The truth value of an array with more than one element is ambiguous"


def _is_truth_value(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_AMBIGUOUS)


def _truth_value_card(exc, where, called_from) -> ErrorCard:
    node = _node_at(where)
    builtin = _python_math_rewrite(where) if node is None else ""
    if builtin:
        why = ("Python's max() and min() pick with a comparison (a > b), which must give one "
               "True or False; of arrays with several elements it gives one per element.")
        rewrite = f"{builtin}    # elementwise: one result per element"
    else:
        why = ("Python's if, while, and, or and not need one True or False, and this array "
               "holds one per element: which one decides is ambiguous.")
        rewrite = _per_element(node)
    return ErrorCard(
        "truth-value", "An array of booleans where Python needs one",
        why=why,
        fix=("A choice per element: jnp.where(cond, a, b) (jnp.maximum / jnp.minimum for "
             "max and min, jnp.logical_and / logical_or for and and or). One answer for the "
             "whole array: jnp.all(cond) (every element) or jnp.any(cond) (at least one)."),
        rewrite=rewrite, docs=None)


def _per_element(node) -> str:
    """The user's `if`, conditional expression or `and`/`or` made elementwise, with the whole-
    array alternative; a template where the line is none of these."""
    one = "# or, one answer for the whole array: jnp.all({}) (every element) or jnp.any({})"
    if isinstance(node, ast.BoolOp):
        return _logical_rewrite(node)
    if isinstance(node, ast.IfExp):
        test = ast.unparse(node.test)
        new = f"jnp.where({test}, {ast.unparse(node.body)}, {ast.unparse(node.orelse)})"
        stmt = getattr(node, "_statement", None)
        whole = ast.unparse(stmt) if stmt is not None else ""
        line = whole.replace(ast.unparse(node), new, 1) if ast.unparse(node) in whole else new
        return f"{line}    # per element\n{one.format(test, test)}"
    if isinstance(node, (ast.If, ast.While)):
        test = ast.unparse(node.test)
        simple = _simple_if(node) if isinstance(node, ast.If) else None
        if simple is not None:
            head, a, b = simple
            return f"{head}jnp.where({test}, {a}, {b})    # per element\n{one.format(test, test)}"
        keyword = "if" if isinstance(node, ast.If) else "while"
        return f"{keyword} jnp.all({test}):    # every element (jnp.any: at least one)"
    return ("y = jnp.where(cond, a, b)    # per element\n"
            "# or, one answer for the whole array: jnp.all(cond) or jnp.any(cond)")
