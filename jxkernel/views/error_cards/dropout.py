"""The card for Flax's nnx.Dropout called in training mode with no random key (Flax's
ValueError "`deterministic` is False, but no `rngs` argument was provided to Dropout"): a
model built with Dropout and called as `model(x)` after `model.train()` (or never switched to
eval), as the MNIST tutorial's learners call it to look at a prediction. The card says the two
ways out, each written on the learner's own call: `model.eval()` for inference (Dropout passes
its input through, no key needed), or a key for training, `rngs=nnx.Rngs(0)`, offered only
where the function called takes an `rngs` argument. No Flax import: Flax's words tell it."""
from __future__ import annotations

import ast

from .card import ErrorCard
from .reading import _learners_frames
from .rewrites import _parse_line

_WORDS = "`deterministic` is False, but no `rngs` argument was provided to Dropout"


def _is_dropout_rngs(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_WORDS)


def _takes_rngs(exc) -> bool:
    """Whether the function the learner's outermost line called takes an `rngs` argument
    (the model's own __call__, or Dropout's when the line calls the layer itself)."""
    frames = _learners_frames(exc)
    if not frames:
        return False
    outer, tb = frames[0][0], exc.__traceback__
    while tb is not None and tb.tb_frame is not outer:
        tb = tb.tb_next
    called = tb.tb_next.tb_frame.f_code if tb is not None and tb.tb_next is not None else None
    if called is None:
        return False
    arguments = called.co_varnames[:called.co_argcount + called.co_kwonlyargcount]
    return "rngs" in arguments


def _dropout_rngs_card(exc, where, called_from) -> ErrorCard:
    line = called_from or where
    tree = _parse_line(line)
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    frames = _learners_frames(exc)
    names = frames[0][0].f_globals if frames else {}
    nnx = "nnx" if "nnx" in names else "flax.nnx"
    rewrites = []
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        rewrites.append(f"{call.func.id}.eval()    # inference: Dropout passes its input "
                        f"through, no key needed\n{line['code']}")
    if isinstance(call, ast.Call) and _takes_rngs(exc) and \
            not any(k.arg == "rngs" for k in call.keywords):
        call.keywords.append(ast.keyword("rngs", ast.parse(f"{nnx}.Rngs(0)", mode="eval").body))
        rewrites.append(f"{ast.unparse(tree)}    # training: a key for Dropout's random mask")
    rewrite = "\n# or\n".join(rewrites) or \
        f"model.eval()    # inference; or model(x, rngs={nnx}.Rngs(0)) to train"
    return ErrorCard(
        "dropout-rngs", "Dropout in training mode needs a random key",
        why=("nnx.Dropout in training mode (deterministic=False: nnx.Module.train(), or as "
             "built) zeroes a random part of its input, drawn with a key from an nnx.Rngs; "
             "none was passed to this call and the layer was built without one."),
        fix=("For predictions, switch the model to inference first, model.eval() (Dropout "
             "then passes its input through; model.train() switches back). To train, pass an "
             f"nnx.Rngs to the call (rngs={nnx}.Rngs(0)) for the model to give Dropout, or "
             "build the layer with one: nnx.Dropout(rate, rngs=rngs)."),
        rewrite=rewrite,
        docs="https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/nn/stochastic.html")

