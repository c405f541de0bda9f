"""Cards for Optax as a PyTorch learner first writes it (each error Optax's or Python's own, in
JAX's words too):

- integer class labels given to `optax.softmax_cross_entropy(logits, labels)`, which takes a
  probability per class, labels of the logits' shape: "Incompatible shapes for broadcasting:
  shapes=[(8,), (8, 10)]" from inside Optax (the broadcast card's expand_dims would have made
  it run, and compute another loss). The rewrite is the integer-labels loss; that loss given
  one-hot rows or float class numbers (Optax's dtype check) gets the class numbers, or the
  distribution loss.
- PyTorch's optimizer words: `optax.adam(lr=1e-3)` (Optax's is learning_rate), and
  `opt.step()` / `opt.zero_grad()`: an Optax optimizer is a pair of functions, init and
  update; the rewrite is the update step.
- `opt.update(grads)` without the state ("update_fn() missing 1 required positional argument:
  'state'"): a PyTorch optimizer keeps its state, Optax's takes it and returns the next; the
  rewrite passes the one state of the learner's namespace and binds the next.
"""
from __future__ import annotations

import ast
import re

from ...core.source_info import installed_package
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines, traceback_frames
from .rewrites import _called, _parse_line, _pattern, _replaced

_DOCS = "https://optax.readthedocs.io/en/latest/api/losses.html"
_BROADCAST = re.compile(r"^Incompatible shapes for broadcasting: shapes=\[\((\d+),\), "
                        r"\((\d+), (\d+)\)\]$")


def _raised_in_optax(exc) -> bool:
    return any(installed_package(f.f_code.co_filename) == "optax"
               for f in traceback_frames(exc))


# ---------------------------------------------- integer labels where a distribution goes
def _labels_call(exc):
    """(the line's tree, its softmax_cross_entropy call, the labels' shape, the logits')
    where the labels have one axis fewer than the logits; None otherwise."""
    found = isinstance(exc, ValueError) and _BROADCAST.match(str(exc))
    if not found or found.group(1) != found.group(2) or not _raised_in_optax(exc):
        return None
    tree = _parse_line(_user_lines(exc)[0])
    call = next((n for n in ast.walk(tree) if _called(n) == "softmax_cross_entropy" and
                 len(n.args) == 2), None) if tree is not None else None
    if call is None:
        return None
    n, k = int(found.group(2)), int(found.group(3))
    return tree, call, (n,), (n, k)


def _is_integer_labels(e) -> bool:
    return _labels_call(e) is not None or _float_labels_call(e) is not None


def _integer_labels_card(exc, where, called_from) -> ErrorCard:
    if _labels_call(exc) is None:
        return _float_labels_card(exc, where, called_from)
    tree, call, labels_shape, logits_shape = _labels_call(exc)
    logits, labels = (ast.unparse(a) for a in call.args)
    frame = _user_frame(exc)
    value = _named_value(frame, call.args[1].id) \
        if isinstance(call.args[1], ast.Name) and frame is not None else None
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind == "f":         # float class numbers: the integer-labels loss refuses them
        new = ast.Call(call.func, [call.args[0], ast.parse(
            f"jax.nn.one_hot({labels}.astype(int), {logits_shape[1]})", mode="eval").body],
            call.keywords)
        note = f"one-hot labels {logits_shape} from the class numbers"
    else:
        func = ast.parse(ast.unparse(call.func).rsplit("softmax_cross_entropy", 1)[0] +
                         "softmax_cross_entropy_with_integer_labels", mode="eval").body
        new = ast.Call(func, call.args, call.keywords)
        note = f"integer labels {labels_shape}: one class per example"
    return ErrorCard(
        "integer-labels", f"softmax_cross_entropy takes labels of the logits' shape "
                          f"{logits_shape}: {labels} is {labels_shape}",
        why=(f"optax.softmax_cross_entropy(logits, labels) compares a distribution with a "
             f"distribution: labels holds a probability per class, of the logits' shape "
             f"{logits_shape} (one-hot rows for a known class). {labels} {labels_shape} holds "
             f"one class number per example, so Optax's elementwise product inside it does "
             f"not broadcast (an expand_dims would make it run and compute another loss)."),
        fix=(f"For class numbers, optax.softmax_cross_entropy_with_integer_labels(logits, "
             f"labels) takes them as they are (integers); or make them one-hot: "
             f"jax.nn.one_hot({labels}, {logits_shape[1]})."),
        rewrite=f"{_replaced(tree, call, new)}    # {note}", docs=_DOCS)


# ------------------------------------------ one-hot rows where class numbers go
# (the integer-labels loss given one-hot rows or float class numbers: Optax's check)
_NOT_INTEGER = re.compile(r"^Expected the input to have a dtype that is a subdtype of "
                          r"<class 'numpy\.integer'>, got (\w+) instead$")


def _float_labels_call(exc):
    """(the line's tree, its softmax_cross_entropy_with_integer_labels call) where Optax
    refused its labels' dtype; None otherwise."""
    if not (isinstance(exc, TypeError) and _NOT_INTEGER.match(str(exc)) and
            _raised_in_optax(exc)):
        return None
    tree = _parse_line(_user_lines(exc)[0])
    call = next((n for n in ast.walk(tree) if _called(n) ==
                 "softmax_cross_entropy_with_integer_labels" and len(n.args) == 2), None) \
        if tree is not None else None
    return (tree, call) if call is not None else None


def _float_labels_card(exc, where, called_from) -> ErrorCard:
    """One-hot rows (`jax.nn.one_hot(labels, k)` on the line: the class numbers it was given;
    a value of the logits' rank: the distribution loss), or float class numbers (cast)."""
    tree, call = _float_labels_call(exc)
    logits, labels = call.args
    frame = _user_frame(exc)
    value = _named_value(frame, labels.id) if isinstance(labels, ast.Name) and frame else None
    logits_value = _named_value(frame, logits.id) \
        if isinstance(logits, ast.Name) and frame else None
    if _called(labels) == "one_hot" and labels.args:
        new = ast.Call(call.func, [logits, labels.args[0]], call.keywords)
        note, what = "the class numbers one_hot was given", "one-hot rows"
    elif value is not None and logits_value is not None and \
            getattr(value, "ndim", None) == getattr(logits_value, "ndim", -1):
        func = ast.parse(ast.unparse(call.func).rsplit("_with_integer_labels", 1)[0],
                         mode="eval").body
        new = ast.Call(func, call.args, call.keywords)
        note, what = "a distribution per example: the loss that takes them", \
            "a distribution per example (one-hot rows)"
    else:
        new = ast.Call(call.func, [logits, ast.parse(f"{ast.unparse(labels)}.astype(int)",
                                                     mode="eval").body], call.keywords)
        note, what = "class numbers as integers", "class numbers of a float dtype"
    return ErrorCard(
        "integer-labels", "softmax_cross_entropy_with_integer_labels takes class numbers, "
                          "integers",
        why=(f"optax.softmax_cross_entropy_with_integer_labels(logits, labels) takes one "
             f"class number per example, of an integer dtype; {ast.unparse(labels)} holds "
             f"{what}."),
        fix=("Give it the class numbers as integers, or give one-hot rows (a probability per "
             "class) to optax.softmax_cross_entropy(logits, labels)."),
        rewrite=f"{_replaced(tree, call, new)}    # {note}", docs=_DOCS)


# ------------------------------------------------------------- PyTorch's optimizer words
_LR = re.compile(r"^(\w+)\(\) got an unexpected keyword argument 'lr'$")
_NO_METHOD = re.compile(r"^'(GradientTransformation\w*)' object has no attribute "
                        r"'(step|zero_grad)'$")


def _is_optimizer_words(e) -> bool:
    if isinstance(e, TypeError) and _LR.match(str(e)):
        where, _ = _user_lines(e)
        tree = _parse_line(where)
        return tree is not None and any(
            any(k.arg == "lr" for k in n.keywords) and "optax" in ast.unparse(n.func)
            for n in ast.walk(tree) if isinstance(n, ast.Call))
    return isinstance(e, AttributeError) and _NO_METHOD.match(str(e)) is not None


def _optimizer_words_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    found = _LR.match(str(exc))
    if found:
        call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and
                    any(k.arg == "lr" for k in n.keywords))
        new = ast.Call(call.func, call.args, [ast.keyword("learning_rate", k.value)
                                              if k.arg == "lr" else k for k in call.keywords])
        return ErrorCard(
            "optimizer-words", "lr= is PyTorch's: Optax writes learning_rate=",
            why=(f"Optax's optimizers name their step size learning_rate "
                 f"(optax.{found.group(1)}(learning_rate=1e-3), or given first, by position)."),
            fix="Write learning_rate= in its place.",
            rewrite=_replaced(tree, call, new),
            docs="https://optax.readthedocs.io/en/latest/api/optimizers.html")
    method = _NO_METHOD.match(str(exc)).group(2)
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and
                 n.attr == method), None) if tree is not None else None
    opt = ast.unparse(node.value) if node is not None else "optimizer"
    return ErrorCard(
        "optimizer-words", f"{opt}.{method}() is PyTorch's: an Optax optimizer is init and "
                           f"update",
        why=("An Optax optimizer keeps no parameters and no gradients: it is a pair of "
             "functions. init(params) makes its state; update(grads, state, params) returns "
             "the updates and the next state, and optax.apply_updates adds the updates to the "
             "parameters. Gradients are values jax.grad returns, so nothing accumulates "
             "between steps: there is nothing to zero."),
        fix=("Replace the step (and drop zero_grad) with the update, after jax.grad has given "
             "the gradients:"),
        rewrite=_pattern(f"grads = jax.grad(loss_fn)(params, x, y)\n"
                         f"updates, opt_state = {opt}.update(grads, opt_state, params)\n"
                         f"params = optax.apply_updates(params, updates)"),
        docs="https://optax.readthedocs.io/en/latest/getting_started.html")


# ------------------------------------------------------------- update without its state
_NO_STATE = re.compile(r"^[\w.<>]*update_fn\(\) missing 1 required positional argument: "
                       r"'state'$")


def is_optax_state(value) -> bool:
    """Whether `value` is one of Optax's states: its NamedTuples (EmptyState too, which holds
    no leaf), or a tuple of them (a chain's); not a pair that holds one beside other values.

        >>> is_optax_state(({"w": 1.0}, ()))
        False
    """
    if type(value).__module__.startswith("optax"):
        return True
    return isinstance(value, tuple) and bool(value) and all(is_optax_state(v) for v in value)


def _update_call(exc):
    """(the line's tree, its `.update(grads)` call) where Optax's update was called without
    its state; None otherwise."""
    if not (isinstance(exc, TypeError) and _NO_STATE.match(str(exc))):
        return None
    tree = _parse_line(_user_lines(exc)[0])
    call = next((n for n in ast.walk(tree) if _called(n) == "update" and len(n.args) == 1
                 and not n.keywords), None) if tree is not None else None
    return (tree, call) if call is not None else None


def _is_update_without_state(e) -> bool:
    return _update_call(e) is not None


def _update_state_card(exc, where, called_from) -> ErrorCard:
    tree, call = _update_call(exc)
    frame = _user_frame(exc)
    names = {**frame.f_globals, **frame.f_locals} if frame is not None else {}
    # (an optimizer is one of Optax's NamedTuples too: init and update)
    states = [n for n, v in names.items() if not n.startswith("_") and is_optax_state(v)
              and not hasattr(v, "update")]
    opt = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else "optimizer"
    if len(states) == 1:
        state = states[0]
        given = ast.Call(call.func, [*call.args, ast.Name(state, ast.Load())], [])
        line = _replaced(tree, call, given)
        assign = tree.body[0] if len(tree.body) == 1 else None
        if isinstance(assign, ast.Assign) and isinstance(assign.targets[0], ast.Tuple):
            rewrite = f"{line}    # the state in, the next state out"
        else:
            rewrite = f"{line}    # returns (updates, the next state): unpack both"
    else:
        rewrite = _pattern(f"updates, opt_state = {opt}.update(grads, opt_state)    # "
                           f"opt_state = {opt}.init(params), once")
    return ErrorCard(
        "optimizer-words", f"{opt}.update takes the optimizer's state: update(grads, state)",
        why=("An Optax optimizer keeps no state of its own (PyTorch's does): init(params) "
             "makes the state, and update(grads, state, params) takes it and returns "
             "(updates, the next state), which the next step passes in."),
        fix=("Pass the state init made after the gradients, and bind the state update "
             "returns for the next step."),
        rewrite=rewrite, docs="https://optax.readthedocs.io/en/latest/getting_started.html")
