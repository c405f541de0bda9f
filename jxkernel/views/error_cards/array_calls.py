"""Cards for jnp calls given what their operation has no meaning for, which NumPy refuses too:
a matrix product of a 0-d operand (`jnp.matmul(2.0, x)`, `2.0 @ x`: a scaling, which is `*`),
and jnp.split into pieces that do not divide the axis (jnp.array_split makes them)."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _called, _parse_line, _pattern, _replaced

# JAX's texts (jnp.matmul's check; jnp.split's)
_MATMUL_0D = re.compile(r"^matmul input operand (\d) must have ndim at least 1, but it has "
                        r"ndim 0$")
_UNEVEN = re.compile(r"^array split does not result in an equal division: rest is (\d+)$")


def _is_matmul_0d(e) -> bool:
    return isinstance(e, ValueError) and _MATMUL_0D.match(str(e)) is not None


def _matmul_0d_card(exc, where, called_from) -> ErrorCard:
    operand = int(_MATMUL_0D.match(str(exc)).group(1))
    side = ("first", "second")[operand]
    tree = _parse_line(where)
    product = _product(tree)
    if product is not None:
        scaled = ast.BinOp(product[0], ast.Mult(), product[1])
        rewrite = f"{_replaced(tree, product[2], scaled)}    # * multiplies by a number"
    else:
        rewrite = _pattern("y = a * x    # in place of a @ x, jnp.matmul(a, x): a one number")
    return ErrorCard(
        "matmul-shapes", f"A matrix product of a number (its {side} operand has no axes)",
        why=(f"matmul (and @) multiplies matrices and vectors, summing over an axis of each; "
             f"its {side} operand is 0-d, a single number, with no axis to sum over."),
        fix="To scale by a number, multiply with *: it broadcasts the number over the array.",
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.matmul.html")


def _product(tree):
    """(a, b, the node) of the user's line's first matrix product: `a @ b` or
    `jnp.matmul(a, b)`, or None."""
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return node.left, node.right, node
        if _called(node) == "matmul" and len(node.args) == 2 and not node.keywords:
            return node.args[0], node.args[1], node
    return None


def _is_uneven_split(e) -> bool:
    return isinstance(e, ValueError) and _UNEVEN.match(str(e)) is not None


def _uneven_split_card(exc, where, called_from) -> ErrorCard:
    rest = int(_UNEVEN.match(str(exc)).group(1))
    tree = _parse_line(where)
    call = next((node for node in ast.walk(tree) if _called(node) == "split" and
                 isinstance(node.func, ast.Attribute) and
                 ast.unparse(node.func.value) in ("jnp", "jax.numpy", "np", "numpy")), None) \
        if tree is not None else None
    if call is not None:
        uneven = ast.Call(ast.Attribute(call.func.value, "array_split", ast.Load()),
                          call.args, call.keywords)
        rewrite = f"{_replaced(tree, call, uneven)}    # {_longer(rest)}"
    else:
        rewrite = _pattern("pieces = jnp.array_split(x, n)    # in place of jnp.split(x, n)")
    return ErrorCard(
        "uneven-split", "jnp.split: the pieces would not be of one size",
        why=(f"jnp.split(x, n) cuts x into n pieces of one size, so n must divide the axis's "
             f"length; here {rest} element{'s' * (rest != 1)} would be left over."),
        fix=(f"jnp.array_split(x, n) takes pieces of two sizes: {_longer(rest)}. Or give "
             f"the indices to cut at, jnp.split(x, [i, j])."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.array_split.html")


def _longer(rest) -> str:
    return (f"the first {rest} piece{'s' * (rest != 1)} one element longer than the "
            f"others")
