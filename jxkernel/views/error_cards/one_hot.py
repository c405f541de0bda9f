"""The one-hot card: `jax.nn.one_hot(labels)` without the number of classes (Python's own
TypeError, JAX 0.10.2's words: "one_hot() missing 1 required positional argument:
'num_classes'"). PyTorch's `F.one_hot(labels)` counts the classes from the labels' largest
value; JAX needs every shape before it computes (a traced array's values are unknown under
jit), so the number is the learner's to give. The rewrite passes the labels' largest value
+ 1 where the learner's namespace holds them as a concrete integer array, and says that a
batch may lack the last class.

    jax.nn.one_hot(labels)    ->  jax.nn.one_hot(labels, 3)    # labels.max() + 1 here
"""
from __future__ import annotations

import ast
import re

import numpy as np

from ...core.trace import Tracer
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _parse_line, _pattern, _replaced

_MISSING = re.compile(r"^one_hot\(\) missing 1 required positional argument: 'num_classes'$")


def _one_hot_call(e):
    """(the user's line parsed, its one_hot call given the labels alone), or None."""
    if not (isinstance(e, TypeError) and _MISSING.match(str(e))):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    calls = [n for n in ast.walk(tree) if _called(n) == "one_hot" and len(n.args) == 1
             and not n.keywords] if tree is not None else []
    return (tree, calls[0]) if len(calls) == 1 else None


def _is_one_hot_classes(e) -> bool:
    return _one_hot_call(e) is not None


def _classes_seen(node, frame) -> int | None:
    """The labels' largest value + 1, where `node` names a concrete integer array of the
    user's frame (never a traced one, whose values are unknown); None otherwise."""
    value = _named_value(frame, node.id) if isinstance(node, ast.Name) and frame else None
    if value is None or isinstance(value, Tracer) or not hasattr(value, "dtype"):
        return None
    labels = np.asarray(value)
    if labels.dtype.kind not in "iu" or labels.size == 0 or labels.min() < 0:
        return None
    return int(labels.max()) + 1


def _one_hot_card(exc, where, called_from) -> ErrorCard:
    tree, call = _one_hot_call(exc)
    labels = ast.unparse(call.args[0])
    seen = _classes_seen(call.args[0], _user_frame(exc))
    if seen is not None:
        given = ast.Call(call.func, [call.args[0], ast.Constant(seen)], [])
        rewrite = (f"{_replaced(tree, call, given)}    # num_classes: {labels}.max() + 1 = "
                   f"{seen} here")
        here = (f" The largest of {labels}, + 1, is {seen}; the dataset's number of classes "
                f"is surer (a batch may lack the last class).")
    else:
        rewrite = _pattern("jax.nn.one_hot(labels, num_classes)    # the number of classes, "
                           "a Python int")
        here = ""
    return ErrorCard(
        "one-hot-classes", "jax.nn.one_hot needs num_classes: the number of classes",
        why=("one_hot's result has a last axis of num_classes entries, and JAX needs every "
             "shape before it computes (under jit the labels' values are unknown): it does not "
             "count the classes from the labels, as PyTorch's F.one_hot does by default."),
        fix=f"Pass the number of classes, a Python int, after the labels.{here}",
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.nn.one_hot.html")
