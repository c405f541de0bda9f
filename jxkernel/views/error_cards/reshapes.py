"""Cards for a reshape to a shape of another size (`m.reshape(4, 3)` of 6 elements) and a
reshape with two -1s. A fix with -1 is offered only where the other sizes divide the array's."""
from __future__ import annotations

import ast
import math
import re

from .card import ErrorCard
from .rewrites import _called, _parse_line, _pattern, _replaced, _whole_statement

_RESHAPE = re.compile(r"^cannot reshape array of shape (\(.*?\)) \(size (\d+)\) into shape (.+?)"
                      r"(?: \(size (\d+)\)| because the product of specified axis sizes "
                      r"\((\d+)\) does not evenly divide \d+)$")


def _is_reshape_size(e) -> bool:
    return isinstance(e, TypeError) and _RESHAPE.match(str(e)) is not None


def _reshape_card(exc, where, called_from) -> ErrorCard:
    shape, size, target, target_size, known = _RESHAPE.match(str(exc)).groups()
    size = int(size)
    dims = ast.literal_eval(target)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    why = (f"A reshape keeps every element, so the new sizes must multiply to the array's "
           f"size, {size} (shape {shape})")
    why += (f"; {target} holds {target_size}." if target_size else
            f"; with -1, the others ({known}) must divide {size}, and they do not.")
    free = _free_axis(dims, size)
    if free is None:
        fix = (f"Choose sizes that multiply to {size}: {_shapes_of(size, max(len(dims), 1))}. "
               f"-1 stands for one size worked out from the others.")
        rewrite = f"# {size} elements fill {_shapes_of(size, max(len(dims), 1))}"
    else:
        result = dims[:free] + (size // math.prod(dims[:free] + dims[free + 1:]),) + \
            dims[free + 1:]
        fix = (f"-1 lets one size be worked out from the others: {_dims_text(dims, free)} "
               f"gives {result}. Or choose sizes that multiply to {size}.")
        rewrite = _reshape_rewrite(where, dims, free, result)
    return ErrorCard(
        "reshape-size", f"A reshape of {size} elements into {target}",
        why=why, fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.reshape.html")


# JAX's text (jnp.reshape's _compute_newshape): -1 given for two or more axes
_UNKNOWNS = re.compile(r"^can only specify one unknown axis size with a `-1` value, got (\(.*\))$")


def _is_reshape_unknowns(e) -> bool:
    return isinstance(e, TypeError) and _UNKNOWNS.match(str(e)) is not None


def _reshape_unknowns_card(exc, where, called_from) -> ErrorCard:
    """Two -1s: JAX's message names no size, and which axis the learner meant to give is
    theirs to say, so the card tells the rule and writes the sizes with names, as comments."""
    target = _UNKNOWNS.match(str(exc)).group(1)
    dims = ast.literal_eval(target)
    names = iter(("n", "m", "k", "l"))
    sketch = "(" + ", ".join(
        str(d) if d != -1 or i == dims.index(-1) else next(names, "n")
        for i, d in enumerate(dims)) + ")"
    return ErrorCard(
        "reshape-size", f"A reshape into {target}: -1 stands for one size only",
        why=(f"-1 is the one size a reshape works out from the others and the array's size; "
             f"{target} has {dims.count(-1)} of them, and many shapes would fit."),
        fix="Write every size but one as a number (or x.shape[i]); -1 for the one left.",
        rewrite=_pattern(f"y = x.reshape{sketch}    # in place of {target}: n the size you "
                         f"mean, -1 worked out"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.reshape.html")


def _free_axis(dims, size):
    """The first axis of `dims` that -1 can stand for (the others divide `size`), when
    there are two or more and none is -1 already; else None."""
    if len(dims) < 2 or -1 in dims:
        return None
    for i in range(len(dims)):
        rest = math.prod(dims[:i] + dims[i + 1:])
        if rest > 0 and size % rest == 0:
            return i
    return None


def _dims_text(dims, free) -> str:
    return "(" + ", ".join("-1" if i == free else str(d) for i, d in enumerate(dims)) + ")"


def _shapes_of(size, rank) -> str:
    """A few shapes of `rank` axes holding `size` elements: (6,), or (1, 6), (2, 3), ..."""
    if rank == 1:
        return f"({size},), or with two axes {_shapes_of(size, 2)}"
    pairs = [(d, size // d) for d in range(1, size + 1) if size % d == 0][:6]
    lead = (1,) * (rank - 2)
    return ", ".join(str(lead + p) for p in pairs)


def _reshape_rewrite(where, dims, free, result) -> str:
    """The user's reshape with -1 at axis `free`: its sizes as separate arguments
    (`m.reshape(4, 3)`) or a tuple (`jnp.reshape(m, (3, 4))`)."""
    note = f"    # gives {result}"
    tree = _parse_line(_whole_statement(where))
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) != "reshape":
            continue
        method = isinstance(node.func, ast.Attribute) and \
            ast.unparse(node.func.value) not in ("jnp", "np", "jax.numpy", "numpy")
        args = node.args if method else node.args[1:]
        sizes = (args if len(args) == len(dims) else
                 args[0].elts if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List))
                 else [])
        literal = [_number(s) for s in sizes]
        if tuple(literal) == tuple(dims):
            return _replaced(tree, sizes[free], "-1") + note
    return _pattern(f"y = x.reshape{_dims_text(dims, free)}{note}")


def _number(node):
    """A size written as a number or arithmetic of numbers (`28 * 28 * 3`: the card fell
    back to `y = x.reshape(...)`, names the learner's line has not), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _number(node.operand)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _number(node.left), _number(node.right)
        if left is not None and right is not None and \
                not (isinstance(node.op, ast.FloorDiv) and right == 0):
            return _ARITHMETIC[type(node.op)](left, right)
    return None


_ARITHMETIC = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
               ast.FloorDiv: int.__floordiv__}
