"""The card for NumPy's ways of changing an array in place, asked of a JAX array: `x.fill(0)`,
`x.put(ind, v)`, `x.itemset(i, v)`, `x.partition(k)`, `x.shape = (3, 2)`, `x.dtype = d`,
`np.copyto(x, src)`, `np.add.at(x, idx, v)`. JAX arrays are immutable: the rewrite binds the
new array JAX's function makes to the same name, each checked under JAX 0.10.2
(tests/data/learner_mistakes_cases.py IN_PLACE).

    x.fill(0.0)             ->  x = jnp.full_like(x, 0.0)
    np.add.at(x, [0, 0], 1) ->  x = x.at[jnp.asarray([0, 0])].add(1)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _operand, _parse_line, _pattern
from .torch_habits import _NO_ATTRIBUTE

_METHODS = ("fill", "put", "itemset", "partition", "setflags", "flags")
_NO_SETTER = re.compile(r"^property '(shape|dtype)' of '\w+' object has no setter$")
_COPYTO = re.compile(r"^copyto\(\) argument 1 must be a numpy\.ndarray, not ")
_UFUNC_AT = "first operand must be array"       # NumPy's ufunc.at given no ndarray
# NumPy's ufuncs whose .at has an .at[] update of JAX's
_AT = {"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
       "true_divide": "divide", "maximum": "max", "minimum": "min"}


def _asked(exc) -> str | None:
    """What NumPy in-place way `exc` says was asked for ('fill', 'shape', 'copyto', 'at')."""
    text = str(exc)
    found = _NO_ATTRIBUTE.match(text) or _NO_SETTER.match(text)
    if found:
        return found.group(1) if found.group(1) in _METHODS + ("shape", "dtype") else None
    return "copyto" if _COPYTO.match(text) else "at" if text == _UFUNC_AT else None


def _is_numpy_in_place(e) -> bool:
    return isinstance(e, (AttributeError, TypeError)) and _asked(e) is not None


def _array(node) -> str:
    """An index or values argument as JAX takes it: a Python list as an array (jnp.put and
    .at[] refuse lists), a tuple of indices as they are (`x.at[1, 2]`)."""
    code = ast.unparse(node)
    return f"jnp.asarray({code})" if isinstance(node, ast.List) else code


def _index(node) -> str:
    return ", ".join(map(ast.unparse, node.elts)) if isinstance(node, ast.Tuple) else \
        _array(node)


def in_place_rewrite(code: str) -> str | None:
    """The statement `code` as the new array bound to the name, or None.

        >>> in_place_rewrite("x.fill(0.0)")
        'x = jnp.full_like(x, 0.0)'
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], ast.Attribute) and stmt.targets[0].attr in (
                "shape", "dtype"):
        x, value = ast.unparse(stmt.targets[0].value), ast.unparse(stmt.value)
        return f"{x} = {x}.reshape({value})" if stmt.targets[0].attr == "shape" else \
            (f"{x} = {x}.view({value})    # the same bits read as {value}, as NumPy's; "
             f"{x}.astype({value}) converts the values")
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or \
            call.keywords:
        return None
    name, args, owner = call.func.attr, call.args, call.func.value
    if name == "copyto" and len(args) == 2:
        dst = ast.unparse(args[0])
        return (f"{dst} = jnp.broadcast_to(jnp.asarray({ast.unparse(args[1])}, {dst}.dtype), "
                f"{dst}.shape)")
    if name == "at" and isinstance(owner, ast.Attribute) and owner.attr in _AT and \
            len(args) == 3:
        x = ast.unparse(args[0])
        return f"{x} = {x}.at[{_index(args[1])}].{_AT[owner.attr]}({ast.unparse(args[2])})"
    x = _operand(owner)
    if name == "fill" and len(args) == 1:
        return f"{x} = jnp.full_like({x}, {ast.unparse(args[0])})"
    if name == "put" and len(args) == 2:
        return f"{x} = jnp.put({x}, {_array(args[0])}, {_array(args[1])}, inplace=False)"
    if name == "itemset" and len(args) == 2:
        return f"{x} = {x}.at[{_index(args[0])}].set({ast.unparse(args[1])})" if \
            isinstance(args[0], ast.Tuple) else \
            f"{x} = jnp.put({x}, {ast.unparse(args[0])}, {ast.unparse(args[1])}, inplace=False)"
    if name == "partition" and len(args) == 1:
        return f"{x} = jnp.partition({x}, {ast.unparse(args[0])})"
    return None


def _in_place_card(exc, where, called_from) -> ErrorCard:
    name = _asked(exc)
    rewrite = in_place_rewrite(where["code"]) if _parse_line(where) is not None else None
    shown = {"shape": "x.shape = ...", "dtype": "x.dtype = ...", "copyto": "np.copyto",
             "at": "np.add.at (a ufunc's at)", "flags": "x.flags"}.get(name, f"x.{name}()")
    new = rewrite.split(" = ", 1)[1].split("    # ")[0] if rewrite else None
    return ErrorCard(
        "immutable-array", f"{shown} changes an array in place; " +
        (f"JAX makes a new one: {new}" if new and len(new) <= 40 else "JAX arrays never change"),
        why=("NumPy's arrays can be written into; JAX's are immutable (a traced one is not "
             "even memory yet): each update makes a new array, which the name is bound to."),
        fix=("Bind the new array to the name, as the line below does." if rewrite else
             "Make the new array with x.at[i].set(v) (or jnp's function) and bind it to x."),
        rewrite=rewrite or _pattern("x = x.at[i].set(v)    # a new array, bound to x"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")
