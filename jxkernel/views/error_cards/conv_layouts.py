"""The card for a convolution given arrays in another layout than lax's default: lax.conv (and
conv_general_dilated without dimension_numbers) reads the input as NCHW and the kernel as OIHW,
where images and Flax's kernels are channels-last, NHWC and HWIO. `lax.conv(img, w, (1, 1),
'SAME')` of a (1, 28, 28, 3) img meets "lhs feature dimension size divided by
feature_group_count must equal the rhs input feature dimension size, but 28 // 1 != 3" (JAX's
words): the image's height read as its channels. An image without its batch axis meets "ndim
to be equal". The card finds the layouts in which the channels agree (a square kernel first,
the fewest changes first) and writes the call with them as dimension_numbers, its result's
shape computed here by XLA's rule.

    lax.conv(img, w, (1, 1), 'SAME')  ->
    lax.conv_general_dilated(img, w, (1, 1), 'SAME', dimension_numbers=('NHWC', 'OIHW', 'NHWC'))
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _parse_line, _replaced

_FEATURES = re.compile(r"^conv_general_dilated lhs feature dimension size divided by "
                       r"feature_group_count must equal the rhs input feature dimension size, "
                       r"but (\d+) // 1 != (\d+)\.$")
_RANKS = re.compile(r"^convolution requires lhs and rhs ndim to be equal, got (\d+) and (\d+)\.$")
# the convolutions whose arguments run (lhs, rhs, window_strides, padding, ...) as
# conv_general_dilated's, and which read the default layout where none is given
_CONVS = ("conv", "conv_with_general_padding", "conv_general_dilated")
_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _conv_call(exc):
    """(the line's tree, its convolution call, lhs's shape, rhs's shape) where `exc` is a
    convolution's channels or ranks error and the call gives no dimension_numbers; or None."""
    shapes = getattr(exc, "conv_shapes", None)
    if shapes is None or not (_FEATURES.match(str(exc)) or _RANKS.match(str(exc))):
        return None
    tree = _parse_line(_user_lines(exc)[0])
    call = next((n for n in ast.walk(tree) if _called(n) in _CONVS and len(n.args) >= 4),
                None) if tree is not None else None
    if call is None or any(k.arg == "dimension_numbers" for k in call.keywords) or \
            len(call.args) > 6:
        return None
    return tree, call, *shapes


def _is_conv_layout(e) -> bool:
    found = _conv_call(e)
    return found is not None and bool(_layouts(*_batched(found[2], found[3])))


def _batched(lhs, rhs) -> tuple:
    """(lhs, rhs) with the batch axis lhs lacks, where it has one axis fewer than rhs."""
    return ((1,) + tuple(lhs) if len(lhs) == len(rhs) - 1 else tuple(lhs)), tuple(rhs)


def _layouts(lhs, rhs) -> list:
    """The (input, kernel) layouts other than NCHW/OIHW in which the input's channels are the
    kernel's inputs: a square kernel's first, then in the order of fewest changes (the input
    channels-last; the kernel HWIO; both). Kernels are square as a rule: a non-square reading
    (an (8, 3) window of a kernel whose 8 outputs came first) only where no square one fits."""
    if len(lhs) != len(rhs) or len(lhs) - 2 not in _SPATIAL:
        return []
    s = _SPATIAL[len(lhs) - 2]
    tried = [(f"N{s}C", f"OI{s}"), (f"NC{s}", f"{s}IO"), (f"N{s}C", f"{s}IO")]
    if len(lhs) == len(rhs) and lhs[1] == rhs[1]:      # the default fits: only a batch axis
        tried.insert(0, (f"NC{s}", f"OI{s}"))
    fits = [(i, k) for i, k in tried if lhs[i.index("C")] == rhs[k.index("I")]]
    square = [(i, k) for i, k in fits if len({rhs[k.index(c)] for c in s}) == 1]
    return square or fits


def _out_shape(lhs, rhs, layout, strides, padding) -> tuple | None:
    """The result's shape in the input's layout (XLA's rule), or None where the strides or the
    padding are not numbers and words on the line."""
    inputs, kernel = layout
    s = _SPATIAL[len(lhs) - 2]
    if not (isinstance(strides, (tuple, list)) and len(strides) == len(s)):
        return None
    sizes = {"N": lhs[inputs.index("N")], "C": rhs[kernel.index("O")]}
    for axis, c in enumerate(s):
        size, k, stride = lhs[inputs.index(c)], rhs[kernel.index(c)], strides[axis]
        if padding in ("SAME", "SAME_LOWER"):
            sizes[c] = -(-size // stride)
        elif padding == "VALID":
            sizes[c] = max(0, -(-(size - k + 1) // stride))
        elif isinstance(padding, (tuple, list)) and len(padding) == len(s):
            lo, hi = padding[axis]
            sizes[c] = max(0, (size + lo + hi - k) // stride + 1)
        else:
            return None
    return tuple(sizes[c] for c in inputs)


def _value(node, frame):
    """A literal on the line, or the value a name of the user's frame holds; None."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _named_value(frame, node.id) if isinstance(node, ast.Name) and frame else None


def _conv_layout_card(exc, where, called_from) -> ErrorCard:
    tree, call, lhs_given, rhs = _conv_call(exc)
    lhs, rhs = _batched(lhs_given, rhs)
    fits = _layouts(lhs, rhs)
    name, frame = ast.unparse(call.func), _user_frame(exc)
    x, w = ast.unparse(call.args[0]), ast.unparse(call.args[1])
    strides, padding = _value(call.args[2], frame), _value(call.args[3], frame)
    shapes = [_out_shape(lhs, rhs, f, strides, padding) for f in fits]
    said = "; ".join(f"('{i}', '{k}', '{i}') gives {shape}" if shape else
                     f"('{i}', '{k}', '{i}')" for (i, k), shape in zip(fits, shapes))
    inputs, kernel = fits[0]
    no_batch = len(lhs_given) < len(lhs)
    if no_batch:
        call.args[0] = ast.Subscript(call.args[0], ast.Constant(None), ast.Load())
    default = (inputs, kernel) == (f"NC{_SPATIAL[len(lhs) - 2]}", f"OI{_SPATIAL[len(lhs) - 2]}")
    if not default:
        call.func = ast.Attribute(call.func.value, "conv_general_dilated", ast.Load()) \
            if isinstance(call.func, ast.Attribute) else ast.Name("conv_general_dilated")
        call.keywords = call.keywords + [ast.keyword("dimension_numbers", ast.parse(
            f"('{inputs}', '{kernel}', '{inputs}')", mode="eval").body)]
    shown = f"    # {shapes[0]}" if shapes[0] else ""
    rewrite = _replaced(tree, call, ast.unparse(call)) + shown + \
        (" (the batch of one)" if no_batch else "")
    s = _SPATIAL[len(lhs) - 2]
    why = (f"{_called(call) if default else name.rsplit('.', 1)[-1]} without dimension_numbers "
           f"reads the input as NC{s} (batch, channels, then the spatial axes) and the kernel "
           f"as OI{s} (outputs, inputs, then the spatial axes), and the input's channels must "
           f"be the kernel's inputs")
    if no_batch:
        why += (f"; {x} has {len(lhs_given)} axes, the kernel {len(rhs)}: the input needs "
                f"its batch axis, even for one example ({x}[None] adds it)")
    else:
        why += (f": in that reading {x} {tuple(lhs)} has {lhs[1]} channels and {w} "
                f"{tuple(rhs)} takes {rhs[1]}")
    if not default:
        why += (f". {x} reads as {inputs}, channels last, as images and Flax's layers lay "
                f"them out" if inputs.endswith("C") else f". {w} reads as {kernel}, as Flax's "
                f"kernels are")
    fix = (f"Say the layouts with dimension_numbers=(input, kernel, output) in "
           f"lax.conv_general_dilated: {said}." if not default else
           f"Add the batch axis: {x}[None] for one example.")
    if not default and len(fits) > 1:
        fix += " Which one the arrays mean the card cannot tell: check each array's axes."
    return ErrorCard(
        "conv-layout", f"{name.rsplit('.', 1)[-1]} reads arrays as NC{s} and OI{s}: "
                       + ("the input lacks its batch axis" if no_batch and default else
                          f"the layouts are {inputs} and {kernel}"),
        why=why + ".", fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.conv_general_dilated.html")
