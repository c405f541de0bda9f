"""The card for arrays of one number of dimensions but other sizes joined into one, which had
none: `jnp.stack([a, b])` of shapes (3,) and (4,) (stack needs one shape: the shorter padded
with zeros, or the two joined end to end by jnp.concatenate), and `jnp.concatenate([a, b],
axis=1)` of (5, 3) and (4, 3), which agree along axis 1 and differ along axis 0 (joined along
axis 0 they fit). The rewrite is the user's line where the shapes differ along one axis;
else the card lists the shapes."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .joins import _ONE_EXAMPLE, _axis, _func, _join_call, _one_example, _operands
from .rewrites import _operand, _parse_line, _replaced

_STACK = re.compile(r"^All input arrays must have the same shape\. Got (.*)\.$")
_CONCAT = re.compile(r"^Cannot concatenate arrays with shapes that differ in dimensions other "
                     r"than the one being concatenated: concatenating along dimension (\d+) "
                     r"for shapes (.*)\.$")


def _shapes(exc):
    """(the verb, the shapes JAX's message lists), or None for another message."""
    text = str(exc)
    found, verb = _STACK.match(text), "stack"
    if found is None:
        found, verb = _CONCAT.match(text), "concatenate"
    try:
        shapes = ast.literal_eval(f"[{found.group(found.re.groups)}]") if found else None
    except (ValueError, SyntaxError):
        return None
    if not shapes or not all(isinstance(s, tuple) for s in shapes) or \
            len({len(s) for s in shapes}) != 1:
        return None
    return verb, shapes


def _is_join_shapes(e) -> bool:
    return isinstance(e, (TypeError, ValueError)) and _shapes(e) is not None


def _join_shapes_card(exc, where, called_from) -> ErrorCard:
    verb, shapes = _shapes(exc)
    tree = _parse_line(where)
    call = _join_call(tree, verb) if tree is not None else None
    name = ast.unparse(call.func) if call is not None else f"jnp.{verb}"
    elts = _operands(call, len(shapes)) if call is not None else None
    shapes, vmapped = _one_example(exc, elts, shapes)
    names = [ast.unparse(e) for e in elts] if elts else \
        [f"operand {i}" for i in range(len(shapes))]
    listing = ", ".join(f"{n} is {s}" for n, s in zip(names, shapes)) + \
        (_ONE_EXAMPLE if vmapped else "")
    differ = [k for k in range(len(shapes[0])) if len({s[k] for s in shapes}) > 1]
    rewrite = None
    if verb == "stack":
        why = f"{name} puts arrays side by side along a new axis, so they must have one shape"
        fix = ("Give them one shape (pad the shorter with zeros, jnp.pad, or cut the longer), "
               "or, to join them end to end along an axis they have, jnp.concatenate.")
        if elts and len(differ) == 1:
            # (joined first: padding changes the operands in the tree)
            joined = _joined(tree, call, differ[0], shapes, "")
            rewrite = _padded(tree, elts, shapes, differ[0]) + \
                "\n# or, end to end (no new axis):\n" + joined
    else:
        axis = _axis(call, verb, len(shapes[0])) if call is not None else None
        why = (f"{name} joins arrays along one axis (here axis {axis if axis is not None else '?'})"
               f", so they must agree on every other axis")
        fix = ("Join them along the axis where their sizes differ, or give them one size on "
               "the others (reshape, index or transpose one).")
        if call is not None and len(differ) == 1 and axis is not None and differ[0] != axis:
            rewrite = _joined(tree, call, differ[0], shapes, "")
    if rewrite is None:
        rewrite = "# " + "; ".join(f"{n}: {s}" for n, s in zip(names, shapes))
    return ErrorCard(
        "join-shapes", f"{name} was given arrays of shapes {', '.join(map(str, shapes))}",
        why=f"{why}: {listing}.", fix=fix, rewrite=rewrite,
        docs="https://numpy.org/doc/stable/user/absolute_beginners.html"
             "#adding-removing-and-sorting-elements")


def _padded(tree, elts, shapes, axis) -> str:
    """The user's line with each shorter operand padded with zeros along `axis` to the
    longest's size."""
    size = max(s[axis] for s in shapes)
    for i, shape in enumerate(shapes):
        if shape[axis] < size:
            pads = [(0, size - shape[axis]) if k == axis else (0, 0)
                    for k in range(len(shape))]
            pad = repr(pads[0]) if len(pads) == 1 else repr(pads)
            elts[i] = ast.parse(f"jnp.pad({_operand(elts[i])}, {pad})", mode="eval").body
    grown = shapes[0][:axis] + (size,) + shapes[0][axis + 1:]
    return f"{ast.unparse(tree)}    # each {grown}, zeros after the shorter's values"


def _joined(tree, call, axis, shapes, head="") -> str:
    """The user's line joining the operands with jnp.concatenate along `axis` (the call's
    own axis argument replaced)."""
    arrays = [ast.parse(ast.unparse(e), mode="eval").body for e in call.args[0].elts] \
        if isinstance(call.args[0], (ast.List, ast.Tuple)) else None
    operands = type(call.args[0])(arrays, ast.Load()) if arrays else call.args[0]
    keywords = [ast.keyword("axis", ast.Constant(axis))] if axis else []
    joined = ast.Call(_func(call, "concatenate"), [operands], keywords)
    shape = list(shapes[0])
    shape[axis] = sum(s[axis] for s in shapes)
    return f"{head}{_replaced(tree, call, joined)}    # {tuple(shape)}"
