"""The card for Flax NNX's Optimizer as tutorials before Flax 0.11 wrote it (Flax's own words,
JAX 0.10.2's kernel too, raised inside Flax): `nnx.Optimizer(model, tx)` without `wrt` ("Missing
required argument `wrt`"), and `optimizer.update(grads)` without the model ("Missing required
argument `grads`": update takes (model, grads)). The rewrite is the learner's line with what
Flax asks for: `wrt=nnx.Param`, the parameters a tutorial's Optimizer updated; the model the
optimizer was made for (read from the statement of the cell that made it), before the
gradients. No Flax import: Flax's words tell it.

    nnx.Optimizer(model, tx)   ->  nnx.Optimizer(model, tx, wrt=nnx.Param)
    optimizer.update(grads)    ->  optimizer.update(model, grads)
"""
from __future__ import annotations

import ast
import re

from ...core.source_info import installed_package
from .card import ErrorCard
from .reading import _user_lines, traceback_frames
from .rewrites import _bound_above, _called, _parse_line, _pattern, _replaced

_MISSING = re.compile(r"^Missing required argument `(wrt|grads)`\. As of Flax 0\.11\.0 ")
_DOCS = "https://flax.readthedocs.io/en/latest/guides/optimizer_updates.html"


def _missing(e) -> str | None:
    """'wrt' or 'grads' where Flax refused an Optimizer made or updated the old way."""
    found = isinstance(e, TypeError) and _MISSING.match(str(e))
    if not found or not any(installed_package(f.f_code.co_filename) == "flax"
                            for f in traceback_frames(e)):
        return None
    return found.group(1)


def _is_flax_optimizer(e) -> bool:
    return _missing(e) is not None


def _flax_optimizer_card(exc, where, called_from) -> ErrorCard:
    asked = _missing(exc)
    where, _ = _user_lines(exc)
    tree = _parse_line(where)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)] if tree is not None else []
    if asked == "wrt":
        call = next((c for c in calls if _called(c) == "Optimizer" and len(c.args) >= 2), None)
        rewrite = None
        if call is not None:
            # (the learner's own name for Flax's nnx: `nnx.Param` where they wrote nnx.Optimizer)
            owner = ast.unparse(call.func).rpartition(".")[0]
            param = ast.parse(f"{owner}.Param" if owner else "Param", mode="eval").body
            new = ast.Call(call.func, call.args, [*call.keywords, ast.keyword("wrt", param)])
            rewrite = f"{_replaced(tree, call, new)}    # the parameters it updates"
        return ErrorCard(
            "flax-optimizer", "nnx.Optimizer takes wrt since Flax 0.11: which of the model's "
                              "variables it updates",
            why=("Flax 0.11 made nnx.Optimizer say which variables it updates (wrt=nnx.Param: "
                 "the parameters, what the Optimizer of earlier tutorials updated) and stopped "
                 "holding the model: update takes the model with the gradients."),
            fix=("Pass wrt=nnx.Param, and call optimizer.update(model, grads) in the step "
                 "(nnx.ModelAndOptimizer keeps the old way)."),
            rewrite=rewrite or _pattern("optimizer = nnx.Optimizer(model, optax.adam(1e-3), "
                                        "wrt=nnx.Param)"),
            docs=_DOCS)
    call = next((c for c in calls if _called(c) == "update" and len(c.args) == 1), None)
    model = _model_of(where, call)
    if call is not None and model is not None:
        new = ast.Call(call.func, [ast.Name(model, ast.Load()), *call.args], call.keywords)
        rewrite = f"{_replaced(tree, call, new)}    # the model, then the gradients"
    else:
        rewrite = _pattern("optimizer.update(model, grads)")
    return ErrorCard(
        "flax-optimizer", "optimizer.update takes (model, grads) since Flax 0.11",
        why=("Flax 0.11's nnx.Optimizer no longer holds the model it was made for: update "
             "takes the model to change in place, then the gradients."),
        fix="Pass the model first: optimizer.update(model, grads).",
        rewrite=rewrite, docs=_DOCS)


def _model_of(where, call) -> str | None:
    """The model the optimizer `call` updates was made for: the first argument of the
    nnx.Optimizer(...) the user's cell bound to its name above the line (a name), or None."""
    owner = call.func.value if call is not None and isinstance(call.func, ast.Attribute) \
        else None
    bound = _bound_above(where, owner.id) if isinstance(owner, ast.Name) else None
    made = bound.value if bound is not None else None
    if _called(made) == "Optimizer" and made.args and isinstance(made.args[0], ast.Name):
        return made.args[0].id
    return None
