"""The card for a layer given inputs of another feature size than it was built for: Flax's
`nnx.Linear(784, 10)` called on `(4, 28, 28)` images (JAX's TypeError from dot_general) or
`nnx.Conv(1, 32, ...)` on images without their channel axis (JAX's ValueError from
conv_general_dilated). JAX's message names dot_general's or the convolution's sizes; the card
names the layer, its in_features and the input's shape, read from the layer's own frame (its
`self` and `inputs`), and offers a reshape only where the shapes say it gives in_features.
No Flax import: the layer is told by what it holds (an int `in_features`, an `inputs` array)."""
from __future__ import annotations

import ast
import math

from .card import ErrorCard
from .rewrites import _parse_line

_DOT = "dot_general requires contracting dimensions to have the same shape"
_CONV = "conv_general_dilated lhs feature dimension size divided by feature_group_count"


def _layer_call(exc):
    """(the layer, its inputs' shape) of the innermost `__call__` frame in `exc`'s traceback
    whose `self` has an int in_features and whose `inputs` has a shape, or None."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "__call__":
            layer, inputs = frame.f_locals.get("self"), frame.f_locals.get("inputs")
            shape = getattr(inputs, "shape", None)
            batch = frame.f_locals.get("input_batch_shape")
            if isinstance(batch, tuple) and isinstance(shape, tuple) and shape:
                # nnx.Conv made its batch axes one (a leading 1 for an unbatched input)
                # before convolving: the input as given had these batch axes
                shape = batch + tuple(shape[1:])
            if isinstance(getattr(layer, "in_features", None), int) and \
                    isinstance(shape, tuple) and shape:
                found = layer, tuple(shape)
        tb = tb.tb_next
    return found


def _is_layer_features(e) -> bool:
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return (isinstance(e, TypeError) and first.startswith(_DOT) or
            isinstance(e, ValueError) and first.startswith(_CONV)) and \
        _layer_call(e) is not None


def _spelled(layer) -> str:
    """'nnx.Linear(784, 10)' for Flax NNX's layers, 'Linear(784, 10)' for another library's."""
    cls = type(layer)
    prefix = "nnx." if cls.__module__.startswith("flax.nnx") else ""
    return f"{prefix}{cls.__name__}({layer.in_features}, {getattr(layer, 'out_features', '...')})"


def _input_name(where) -> str:
    """The name the user's line passes to the layer (`x` of `self.l1(x)`, `imgs` of
    `conv(imgs)`): the one name given alone to a call there; 'x' when none or several."""
    tree = _parse_line(where)
    names = {n.args[0].id for n in ast.walk(tree) if isinstance(n, ast.Call) and
             len(n.args) == 1 and isinstance(n.args[0], ast.Name)} if tree is not None else set()
    return names.pop() if len(names) == 1 else "x"


def _layer_features_card(exc, where, called_from) -> ErrorCard:
    layer, shape = _layer_call(exc)
    need, last = layer.in_features, shape[-1]
    x = _input_name(where)
    name = _spelled(layer)
    kernel = getattr(layer, "kernel_size", None)
    conv = isinstance(kernel, tuple)
    what = "channels" if conv else "features"
    why = (f"{name} takes inputs whose last axis holds its {need} in_features ({what}, "
           f"channels last); this input has shape {shape}, last axis {last}: "
           f"{'the convolution' if conv else 'its matrix product with the kernel'} pairs the "
           f"two sizes, so they must be equal.")
    if conv and len(shape) == len(kernel) + 1 and need == 1:
        # (4, 28, 28) images for a 2-D Conv(1, ...): the channel axis is missing
        rewrite = f"{x} = {x}[..., None]    # {shape + (1,)}: one channel, last"
        fix = (f"Add the channel axis the layer expects, last: {x}[..., None] gives "
               f"{shape + (1,)} (batch, height, width, channels).")
    elif not conv and len(shape) > 2 and math.prod(shape[1:]) == need:
        # (4, 28, 28) images for Linear(784, ...): one row of 784 features per example
        rewrite = (f"{x} = {x}.reshape({x}.shape[0], -1)    # {(shape[0], need)}: one row of "
                   f"{need} features per example")
        fix = (f"Flatten each example before the layer: {x}.reshape({x}.shape[0], -1) gives "
               f"{(shape[0], need)}.")
    else:
        flax = type(layer).__module__.startswith("flax.nnx")
        rewrite = (f"{'nnx.' if flax else ''}{type(layer).__name__}({last}, "
                   f"{getattr(layer, 'out_features', '...')}, "
                   f"{'rngs=rngs' if flax else '...'})    # in __init__: in_features = the "
                   f"input's last axis, {last}")
        fix = (f"Give the layer inputs whose last axis is {need} (print({x}.shape) where you "
               f"call it), or build it for this input: in_features {last}.")
    return ErrorCard(
        "layer-features", f"{name} got an input of shape {shape}: its last axis must be {need}",
        why=why, fix=fix, rewrite=rewrite,
        docs="https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/nn/linear.html"
        if type(layer).__module__.startswith("flax.") else None)
