"""The card for an array of many booleans where Python needs one True or False: `if x > 0:`
of a vector, `a and b` of arrays, Python's max(v, 0.0) of a vector (NumPy's ValueError, which
JAX raises as NumPy does, traced or not)."""
from __future__ import annotations

import ast
import linecache

from .card import ErrorCard
from .rewrites import (_logical_rewrite, _node_at, _parse_file, _python_math_rewrite,
                       _simple_if)

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
    none = _none_test(node, where)
    if none:
        why += _NONE_WHY
        rewrite = f"{none}\n# or, for its values element by element:\n{rewrite}"
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


_NONE_WHY = (" Its default is None: if the test asks whether it was given, that is `is not "
             "None`, which Python answers while tracing.")


def _none_test(node, where) -> str:
    """`if bias:` (`if not bias:`, `... if bias else ...`) of a parameter whose default is
    None, as `bias is not None` (`is None`): the learner asks whether it was passed, which
    Python answers while tracing, and not its value's truth (the card's jnp.where(bias, ...)
    kept x where a weight was 0: `if weights: x = x * weights` of [1, 0, 2] gave [1, 1, 2],
    JAX's run of the `is not None` test [1, 0, 2]); "" for any other test."""
    test = getattr(node, "test", None) if isinstance(node, (ast.If, ast.IfExp)) else None
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    name = test.operand if negated else test
    if not isinstance(name, ast.Name) or not _defaults_to_none(where, node, name.id):
        return ""
    compared = f"{name.id} is None" if negated else f"{name.id} is not None"
    said = f"    # whether {name.id} was given (its default is None): known while tracing"
    if isinstance(node, ast.IfExp):
        stmt = getattr(node, "_statement", None)
        whole, part = (ast.unparse(stmt), ast.unparse(node)) if stmt is not None else ("", "")
        if part not in whole:
            return ""
        new = ast.IfExp(ast.parse(compared, mode="eval").body, node.body, node.orelse)
        return whole.replace(part, ast.unparse(new), 1) + said
    text = linecache.getline(where.get("_path") or "", node.lineno)
    keyword = text.split()[0] if text.split() else ""
    if keyword not in ("if", "elif") or node.body[0].lineno == node.lineno or \
            node.test.lineno != node.lineno or node.test.end_lineno != node.lineno:
        return ""
    return f"{keyword} {compared}:{said}"


def _defaults_to_none(where, node, name) -> bool:
    """Whether `name` is a parameter, defaulting to None, of the function around `node`."""
    tree = _parse_file((where or {}).get("_path"))
    around = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                          ast.AsyncFunctionDef))
              and f.lineno < node.lineno <= f.end_lineno] if tree is not None else []
    if not around:
        return False
    args = max(around, key=lambda f: f.lineno).args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    return any(a.arg == name and isinstance(d, ast.Constant) and d.value is None
               for a, d in pairs)
