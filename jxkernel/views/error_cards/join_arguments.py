"""The card for arrays given one by one to a function that takes them as one sequence:
`jnp.stack(x, y)`, `jnp.concatenate(a, b)`, `jnp.vstack(x, y)` (as `max(a, b)` or torch.cat's
habit of a list written out). The second array lands in the axis, dtype or out slot, and JAX's
message names that slot, never the arrays: "Only integer scalar arrays can be converted to a
scalar index." (an array as the axis), "Passing an array as a dtype argument ...", "Zero-
dimensional arrays cannot be concatenated." (a vector's numbers taken as the arrays), "The
'out' argument to jnp.stack is not supported.". The rewrite lists the arrays, keywords kept:

    jnp.stack(x, y)                ->  jnp.stack([x, y])
    jnp.concatenate(a, b, axis=1)  ->  jnp.concatenate([a, b], axis=1)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _parse_line, _replaced

# each join's parameters after the arrays, by position (JAX 0.10.2's signatures): what a
# second array given by position was taken for
_AFTER_ARRAYS = {"stack": ("axis", "out", "dtype"), "concatenate": ("axis", "dtype"),
                 "vstack": ("dtype",), "hstack": ("dtype",), "dstack": ("dtype",),
                 "column_stack": ()}
_MESSAGES = re.compile(
    r"^(Only integer scalar arrays can be converted to a scalar index\."
    r"|Passing an array as a dtype argument is no longer supported; .*"
    r"|Zero-dimensional arrays cannot be concatenated\."
    r"|The 'out' argument to jnp\.stack is not supported\."
    r"|(?:stack|concatenate)\(\) got multiple values for argument 'axis'"
    r"|\w+\(\) takes (?:1|from 1 to 2) positional arguments? but \d+ were given"
    # lax.concatenate(x, y): the second array bound as its dimension, which JAX hashes
    r"|unhashable type: '[\w.]*ArrayImpl')$")


def _is_join_arguments(e) -> bool:
    if not isinstance(e, (TypeError, ValueError, NotImplementedError)) or \
            not _MESSAGES.match(str(e)):
        return False
    where, _ = _user_lines(e)
    return _join_call(where, _user_frame(e)) is not None


def _join_call(where, frame):
    """(the line's tree, the join call given its arrays one by one), or None: a join of
    _AFTER_ARRAYS called with two or more arguments by position, each an array (an array's
    name in the user's frame, or an expression that is no number or sequence written out)."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and _called(call) in _AFTER_ARRAYS and \
                len(call.args) >= 2 and all(_is_array(a, frame) for a in call.args):
            return tree, call
    return None


def _is_array(node, frame) -> bool:
    """Whether `node` is one array: a name holding an array of one or more dimensions, or an
    expression (a call, an index) that is no literal or sequence written out."""
    if isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Starred, ast.Set, ast.Dict)):
        return False
    if isinstance(node, ast.Name):
        shape = getattr(_named_value(frame, node.id), "shape", None) if frame else None
        return isinstance(shape, tuple) and len(shape) > 0
    return True


def _join_arguments_card(exc, where, called_from) -> ErrorCard:
    tree, call = _join_call(where, _user_frame(exc))
    name, arrays = _called(call), call.args
    listed = ast.Call(call.func, [ast.List(list(arrays), ast.Load())], call.keywords)
    params = _AFTER_ARRAYS[name]
    func = ast.unparse(call.func)
    if func.rpartition(".")[0].endswith("lax"):
        return _lax_join_card(tree, call, func)
    took = len(arrays) - 1 <= len(params)
    slots = " and ".join(f"{ast.unparse(a)} as its {p}" for a, p in zip(arrays[1:], params))
    taken = f"so it took {ast.unparse(arrays[0])} as the sequence of arrays and {slots}" \
        if took else f"and it takes {len(params) + 1} by position at most"
    return ErrorCard(
        "join-arguments", f"jnp.{name} takes its arrays as one list",
        why=(f"jnp.{name}'s first argument is the sequence of arrays to join (a list or a "
             f"tuple); the arguments after it are its options by position, {taken}. JAX's "
             f"message is about that {'option' if took else 'count'}, not the arrays."),
        fix=(f"Put the arrays in one list: jnp.{name}([{', '.join(map(ast.unparse, arrays))}])"
             + (f" (its options by keyword: {params[0]}=...)." if params else ".")),
        rewrite=f"{_replaced(tree, call, listed)}    # the arrays in one list",
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.{name}.html")


def _lax_join_card(tree, call, func) -> ErrorCard:
    """lax.concatenate(x, y): lax's takes the operands as one sequence and the dimension after
    it, which has no default (jnp's axis is 0 unless given): the arrays listed, dimension 0."""
    arrays = call.args
    given = [k for k in call.keywords if k.arg == "dimension"]
    listed = ast.Call(call.func, [ast.List(list(arrays), ast.Load())] +
                      ([] if given else [ast.Constant(0)]), call.keywords)
    return ErrorCard(
        "join-arguments", f"{func} takes its arrays as one list, then the dimension",
        why=(f"{func}(operands, dimension) takes the sequence of arrays to join, then the "
             f"dimension to join them along (no default): the second array was bound as the "
             f"dimension, which JAX hashes as a parameter, and an array is not hashable."),
        fix=(f"Put the arrays in one list and give the dimension: {ast.unparse(listed)} "
             f"(jnp.concatenate's axis is 0 unless given)."),
        rewrite=f"{_replaced(tree, call, listed)}    # the arrays in one list, along dimension 0",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.concatenate.html")
