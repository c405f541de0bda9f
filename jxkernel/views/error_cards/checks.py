"""The card for checkify.check staged without checkify.checkify (JAX's ValueError "Cannot
abstractly evaluate a checkify.check which was not functionalized"): a check inside a jitted
function (or a scan, a cond) must be made a value by checkify.checkify, then thrown."""
from __future__ import annotations

import ast

from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _parse_line, _pattern

_UNWRAPPED = "Cannot abstractly evaluate a checkify.check which was not functionalized."


def _is_checkify_unwrapped(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_UNWRAPPED)


def _jitted_call(tree, frame):
    """The call in the user's line that runs the jitted function: `jax.jit(g)(x)` (the inner
    `jax.jit(g)`), or `g(x)` where `g` is a jit object in the user's names; None otherwise."""
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] in ("jit", "pjit"):
            return node
        if isinstance(node.func, ast.Name) and hasattr(names.get(node.func.id), "lower"):
            return node
    return None


def _checked_rewrite(line, frame) -> str | None:
    """The user's calling line with its jitted function wrapped in checkify.checkify, the
    result unpacked as (err, value), then err.throw(): None where no such call is found."""
    tree = _parse_line(line)
    call = _jitted_call(tree, frame)
    if call is None:
        return None
    call.func = ast.Call(ast.Attribute(ast.Name("checkify"), "checkify"), [call.func], [])
    statement = tree.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
            statement.value is call:
        statement.targets[0] = ast.Tuple([ast.Name("err"), statement.targets[0]])
    elif isinstance(statement, ast.Expr) and statement.value is call:
        tree.body[0] = ast.Assign([ast.Tuple([ast.Name("err"), ast.Name("out")])], call,
                                  lineno=1)
    else:
        return None
    return (f"{ast.unparse(tree)}    # the checks' error, returned as a value\n"
            f"err.throw()    # raises here if a check failed")


def _checkify_unwrapped_card(exc, where, called_from) -> ErrorCard:
    rewrite = _checked_rewrite(called_from or where, _user_frame(exc))
    if rewrite is None:
        rewrite = _pattern("err, out = checkify.checkify(jax.jit(f))(x)    # f: the function "
                           "with the check\nerr.throw()    # raises here if a check failed")
    return ErrorCard(
        "checkify-unwrapped", "checkify.check inside jit needs checkify.checkify",
        why=("A check inside a traced function (jit, scan, cond) cannot raise while the "
             "function runs compiled: checkify.checkify turns the function's checks into an "
             "error value it returns beside the result."),
        fix=("Wrap the jitted function in checkify.checkify (from jax.experimental import "
             "checkify): it returns (err, result); err.throw() then raises the check's "
             "message if one failed. Outside jit, checkify.check raises at once."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/debugging/checkify_guide.html")
