"""The card for Flax NNX's `rngs` given a seed, a key or the Rngs class itself where it takes
an `nnx.Rngs`: `nnx.Linear(3, 2, rngs=0)`, `MLP(42)` whose __init__ passes its rngs on (Flax's
own words, JAX 0.10.2's kernel too: "'int' object has no attribute 'params'", raised inside
the layer, which asks rngs for its params stream; nnx.Dropout's "rngs must be a Rngs,
RngStream or None"). The rewrite wraps the value the learner wrote, on the outermost of the
learner's lines that writes it, in `nnx.Rngs(...)`. No Flax import: Flax's words tell it.

    MLP(42)  ->  MLP(nnx.Rngs(42))
"""
from __future__ import annotations

import ast
import linecache
import re

from ...core.source_info import installed_package
from ...transforms.api_util import positional_parameters
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _learners_frames, traceback_frames
from .rewrites import _parse_line, _replaced

_NO_STREAM = re.compile(r"^(?:'(\w+)' object|type object '(Rngs)') has no attribute "
                        r"'(params|dropout|default)'$")
_NOT_RNGS = re.compile(r"^rngs must be a Rngs, RngStream or None, but got <class '(\w+)'>\.$")


def _given(e) -> str | None:
    """What was given as rngs, in words ("an int", "a key", "the Rngs class"), where `e` is
    Flax's refusal of it, raised inside Flax; None otherwise."""
    if isinstance(e, AttributeError):
        found = _NO_STREAM.match(str(e))
        kind = found and (found.group(1) or found.group(2))
    elif isinstance(e, TypeError):
        found = _NOT_RNGS.match(str(e))
        kind = found and found.group(1)
    else:
        return None
    if not found or not any(installed_package(f.f_code.co_filename) == "flax"
                            for f in traceback_frames(e)):
        return None
    return {"int": "an int (a seed)", "PRNGKeyArray": "a key", "Array": "a key",
            "ArrayImpl": "a key", "Rngs": "the Rngs class itself"}.get(kind)


def _rngs_argument(call, frame):
    """The node `call` passes as `rngs`: its keyword, or its positional argument at the place
    of a parameter named rngs in the callee the frame binds (a class: its __init__)."""
    for k in call.keywords:
        if k.arg == "rngs":
            return k.value
    callee = _named_value(frame, call.func.id) if isinstance(call.func, ast.Name) else None
    # (a class's own __init__, self left out: Flax's Module metaclass hides its signature)
    params = (positional_parameters(callee.__init__) or [])[1:] if isinstance(callee, type) else \
        positional_parameters(callee) if callable(callee) else None
    if params and "rngs" in params and params.index("rngs") < len(call.args):
        return call.args[params.index("rngs")]
    return None


def _written_at(e):
    """(the learner's line, its syntax tree, the node written as rngs there, the frame), the
    outermost of the learner's lines that passes the value on as rngs; None otherwise."""
    for frame, line in _learners_frames(e):
        code = linecache.getline(frame.f_code.co_filename, line).strip()
        tree = _parse_line({"code": code})
        for call in ast.walk(tree) if tree is not None else ():
            node = _rngs_argument(call, frame) if isinstance(call, ast.Call) else None
            if node is not None:
                return code, tree, node, frame
    return None


def _is_flax_rngs(e) -> bool:
    return _given(e) is not None and _written_at(e) is not None


def _flax_rngs_card(exc, where, called_from) -> ErrorCard:
    given = _given(exc)
    code, tree, node, frame = _written_at(exc)
    nnx = "nnx" if _named_value(frame, "nnx") is not None else "flax.nnx"
    value = ast.unparse(node)
    made = f"{nnx}.Rngs(0)" if given == "the Rngs class itself" else f"{nnx}.Rngs({value})"
    return ErrorCard(
        "flax-rngs", f"rngs takes an {nnx}.Rngs: it was given {given}, {value}",
        why=("Flax's layers draw their initial weights (and Dropout its masks) from rngs, an "
             "nnx.Rngs: named streams of keys (params, dropout) that it splits at each use. A "
             "seed or a key is not one; the layer asked it for its params stream."),
        fix=f"Make an Rngs of it, once, and pass that: {made}.",
        rewrite=f"{_replaced(tree, node, made)}    # an Rngs: a stream of keys per name",
        docs="https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/rnglib.html")
