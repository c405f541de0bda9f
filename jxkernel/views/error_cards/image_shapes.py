"""The card for jax.image.resize (or scale_and_translate) given the new sizes of the spatial
axes alone: `jax.image.resize(img, (64, 64), 'bilinear')` of a (28, 28, 3) image meets JAX's
"shape must have length equal to the number of dimensions of x;  (64, 64) vs (28, 28, 3)".
resize takes the whole new shape, every axis: the channels (and a batch) keep their sizes.
The rewrite adds them where the image says where they are (a last axis of 1, 3 or 4 is the
channels, as images loaded from files lay them out; else a first one).

    jax.image.resize(img, (64, 64), 'bilinear')  ->  jax.image.resize(img, (64, 64, 3), ...)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_lines
from .rewrites import _called, _parse_line, _replaced

_LENGTH = re.compile(r"^shape must have length equal to the number of dimensions of x;  "
                     r"\(([\d, ]*)\) vs \(([\d, ]*)\)$")
_CHANNELS = (1, 3, 4)           # grey, RGB, RGBA


def _sizes(text: str) -> tuple:
    return tuple(int(d) for d in text.split(",") if d.strip())


def _resize_call(exc):
    """(the line's tree, its resize or scale_and_translate call, the shape given, the
    image's) where the shape given names fewer axes than the image has; None otherwise."""
    found = isinstance(exc, ValueError) and _LENGTH.match(str(exc))
    if not found:
        return None
    given, image = _sizes(found.group(1)), _sizes(found.group(2))
    tree = _parse_line(_user_lines(exc)[0])
    call = next((n for n in ast.walk(tree) if _called(n) in ("resize", "scale_and_translate")
                 and len(n.args) >= 2), None) if tree is not None else None
    if call is None or len(given) >= len(image):
        return None
    return tree, call, given, image


def _is_image_shape(e) -> bool:
    return _resize_call(e) is not None


def _whole_shape(given, image) -> tuple | None:
    """`given` (the spatial axes' new sizes) with the image's other axes kept: the channels
    last where the image's last size is 1, 3 or 4, else first; a batch first. None where the
    image does not say."""
    extra = len(image) - len(given)
    last = image[-1] in _CHANNELS
    if extra == 1:
        if last:
            return given + image[-1:]
        return image[:1] + given if image[0] in _CHANNELS else None
    if extra == 2:              # (batch, ..., channels) or (batch, channels, ...)
        return image[:1] + given + image[-1:] if last else \
            image[:2] + given if image[1] in _CHANNELS else None
    return None


def _image_shape_card(exc, where, called_from) -> ErrorCard:
    tree, call, given, image = _resize_call(exc)
    name = ast.unparse(call.func)
    whole = _whole_shape(given, image)
    if whole is not None:
        kept = "the channels keep their size" if len(image) - len(given) == 1 else \
            "the batch and the channels keep their sizes"
        rewrite = f"{_replaced(tree, call.args[1], repr(whole))}    # every axis: {kept}"
    else:
        rewrite = f"# a size for each of the image's {len(image)} axes {image}: {given} names " \
                  f"{len(given)}"
    return ErrorCard(
        "image-shape", f"{_called(call)} takes a size for every axis: the image {image} has "
                       f"{len(image)}, the shape {given} names {len(given)}",
        why=(f"{name}(image, shape, method) resizes each axis of the image to its size in "
             f"shape, so shape names every axis, the channels (and a batch) too, which keep "
             f"their sizes; {given} names the spatial axes alone."),
        fix=("Give the whole new shape: the image's own sizes for the axes that do not change "
             "(the channels, the batch)."),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.image.resize.html")
