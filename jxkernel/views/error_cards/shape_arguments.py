"""The card for a shape (a transpose's axes, tile's reps) given number by number where JAX
takes one tuple, as PyTorch's `torch.zeros(2, 3, 4)` and `torch.randn(3, 4)` take it:
`jnp.zeros(2, 3, 4)`, `jnp.reshape(x, 3, 1)`, `jnp.transpose(x, 1, 0)`, `jnp.tile(v, 2, 3)`,
`jax.random.normal(key, 3, 4)`. The second number lands in the next slot by position, and the
message names that slot, never the shape ("Cannot interpret '4' as a data type", reshape's
"Unexpected value for 'order' argument: 1."), or says the first number alone is of another
size ("cannot reshape array of shape (2, 3) (size 6) into shape 3"), or counts the arguments
("zeros() takes from 1 to 2 positional arguments but 3 were given"). `jnp.zeros(3, 4)` gets
no card: JAX's message asks "Did you accidentally write `jax.numpy.zeros(3, 4)` ...". The
rewrite writes the numbers as one tuple, keywords kept:

    jnp.zeros(2, 3, 4)            ->  jnp.zeros((2, 3, 4))
    jax.random.normal(key, 3, 4)  ->  jax.random.normal(key, (3, 4))
"""
from __future__ import annotations

import ast
import numbers
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _int_written, _parse_line, _replaced

# function -> (the arguments before the shape, the shape's name, the slot after it by position
# in JAX 0.10.2's signature: what a second number was taken for; None where there is none)
_TAKES = {"zeros": (0, "shape", "dtype"), "ones": (0, "shape", "dtype"),
          "empty": (0, "shape", "dtype"), "reshape": (1, "shape", "order"),
          "transpose": (1, "axes", None), "tile": (1, "reps", None),
          "expand_dims": (1, "axis", None), "normal": (1, "shape", "dtype"),
          "uniform": (1, "shape", "dtype")}
_RANDOM = ("normal", "uniform")
_MESSAGES = re.compile(r"^(Cannot interpret '-?\d+' as a data type\.?"
                       r"|cannot reshape array of shape \(.*\) \(size \d+\) into shape -?\d+ "
                       r"\(size \d+\)"
                       r"|Unexpected value for 'order' argument: -?\d+\."
                       r"|\w+\(\) takes (?:from \d+ to )?\d+ positional arguments but \d+ were "
                       r"given)$")


def _is_shape_arguments(e) -> bool:
    if not isinstance(e, (TypeError, ValueError)) or not _MESSAGES.match(str(e)):
        return False
    where, _ = _user_lines(e)
    return _sizes_call(where, _user_frame(e)) is not None


def _sizes_call(where, frame):
    """(the line's tree, the call given its shape number by number), or None: a call of
    _TAKES (jax.random's by a path ending in `random`) with two or more sizes by position
    after the arguments before its shape, every one a size (_is_size)."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        name = _called(call)
        if name not in _TAKES or (name in _RANDOM) != _from_random(call):
            continue
        sizes = call.args[_TAKES[name][0]:]
        if len(sizes) >= 2 and all(_is_size(a, frame) for a in sizes):
            return tree, call
    return None


def _from_random(call) -> bool:
    return ast.unparse(call.func).rpartition(".")[0].endswith("random")


def _is_size(node, frame) -> bool:
    """Whether `node` reads as one size or axis: an int written out (-1 too), a name holding
    a Python or NumPy int, `x.shape[i]`, or `len(...)`."""
    if _int_written(node):
        return True
    if isinstance(node, ast.Name):
        value = _named_value(frame, node.id) if frame is not None else None
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    return isinstance(node, ast.Call) and ast.unparse(node.func) == "len"


def _shape_arguments_card(exc, where, called_from) -> ErrorCard:
    tree, call = _sizes_call(where, _user_frame(exc))
    name, func = _called(call), ast.unparse(call.func)
    before, shape, slot = _TAKES[name]
    sizes = call.args[before:]
    written = ast.Call(call.func, call.args[:before] + [ast.Tuple(list(sizes), ast.Load())],
                       call.keywords)
    tuple_text = ast.unparse(ast.Tuple(list(sizes), ast.Load()))
    head = "".join(f"{ast.unparse(a)}, " for a in call.args[:before])
    taken = (f"so {ast.unparse(sizes[1])} was taken as its {slot}: JAX's message is about "
             f"that" if slot and len(sizes) == 2 else
             "more arguments than it takes by position: Python's message counts them")
    return ErrorCard(
        "shape-arguments", f"{func} takes the {shape} as one tuple",
        why=(f"{func}({head}{shape}{', ' + slot if slot else ''}) takes the {shape} as one "
             f"tuple, {tuple_text}; it was given the numbers one by one, {taken}, not the "
             f"{shape}. {_habit(name, call, sizes)}".rstrip()),
        fix=f"Write the {shape} as one tuple: {ast.unparse(written)}.",
        rewrite=f"{_replaced(tree, call, written)}    # the {shape} as one tuple",
        docs=(f"https://docs.jax.dev/en/latest/_autosummary/jax.random.{name}.html"
              if name in _RANDOM else
              f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.{name}.html"))


# PyTorch's functions that take the sizes one by one, for jax.random's
_TORCH = {"normal": "randn", "uniform": "rand"}


def _habit(name, call, sizes) -> str:
    """Where the numbers one by one come from: the method's way (x.reshape(3, 1), as NumPy's
    takes them), PyTorch's (torch.zeros(3, 4), x.repeat(2, 3) for tile), or "" for none."""
    numbers_ = ", ".join(map(ast.unparse, sizes))
    array = ast.unparse(call.args[0]) if call.args else "x"
    if name in ("reshape", "transpose"):
        also = "; .T reverses all of them" if name == "transpose" else ""
        return f"The method takes them one by one too: {array}.{name}({numbers_}){also}."
    if name == "tile":
        return f"PyTorch's {array}.repeat({numbers_}) takes them one by one."
    if name == "expand_dims":
        return ""
    return (f"PyTorch's torch.{_TORCH.get(name, name)}({numbers_}) takes the sizes one by "
            f"one; NumPy's and JAX's functions take one tuple.")
