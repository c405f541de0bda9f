"""The card for Flax objects (a model, an optimizer) that a `jax.jit` (or `nnx.jit`) function
reads from outside and updates inside: Flax's ValueError "Cannot extract graph node from
different trace level" (nnx.value_and_grad or optimizer.update met variables of the outer
level inside the trace). The card names the objects the traced function reads from its
globals or closure and writes the function jitted with nnx.jit taking them as arguments, on
the learner's own definition and call; nnx.jit carries their updates out. No Flax import:
Flax's words and the objects' modules (flax.nnx) tell them."""
from __future__ import annotations

import ast
import types

from ..static_attributes import global_loads
from .card import ErrorCard
from .reading import _learners_frames, traceback_frames
from .rewrites import _parse_line

_WORDS = "Cannot extract graph node from different trace level"


def _is_closed_modules(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith(_WORDS)


def _names_read(code) -> set:
    """The closure names `code` and the functions defined in it read (their globals:
    static_attributes.global_loads)."""
    names = set(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_read(const)
    return names


def _flax_objects(frame) -> list:
    """The names, in first-read order, of Flax NNX objects `frame`'s function reads from
    outside (its globals or closure), not given as arguments."""
    code = frame.f_code
    outside = {**frame.f_globals, **{n: frame.f_locals.get(n) for n in code.co_freevars}}
    # (the bytecode's global loads: co_names holds attribute names too, `trainer.model`)
    order = list(dict.fromkeys(global_loads(code) + code.co_freevars)) + \
        sorted(_names_read(code) - set(code.co_freevars))
    return [n for n in order if n in outside and _is_flax_object(outside[n])]


def _is_flax_object(value) -> bool:
    """Whether `value` is a Flax NNX object: its class or a base (a learner's nnx.Module
    subclass) is defined in flax.nnx; not a class itself."""
    return not isinstance(value, type) and \
        any(c.__module__.startswith("flax.nnx") for c in type(value).__mro__)


def _under_nnx_jit(exc) -> bool:
    """Whether the traced function is jitted with Flax's nnx.jit (a frame of Flax's
    compilation.py in the traceback), not jax.jit: the same ValueError either way."""
    return any(str(f.f_globals.get("__name__", "")).startswith(
        "flax.nnx.transforms.compilation") for f in traceback_frames(exc))


def _closed_modules_card(exc, where, called_from) -> ErrorCard:
    nnx = _under_nnx_jit(exc)
    jit = "nnx.jit" if nnx else "jax.jit"
    frames = _learners_frames(exc)
    traced = frames[1][0] if len(frames) > 1 else None     # the jitted function's frame
    objects = _flax_objects(traced) if traced is not None else []
    fn = traced.f_code.co_name if traced is not None else "step"
    params = list(traced.f_code.co_varnames[:traced.f_code.co_argcount]) if traced else []
    given = ", ".join(objects or ["model", "optimizer"])
    named = given if len(objects) < 2 else f"{', '.join(objects[:-1])} and {objects[-1]}"
    decorator = "@nnx.jit" if nnx else "@nnx.jit    # not jax.jit: it carries the objects' " \
        "updates out"
    rewrite = (f"{decorator}\n"
               f"def {fn}({', '.join((objects or ['model', 'optimizer']) + params)}):\n"
               f"    ...    # the body as it is")
    tree = _parse_line(called_from)
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if isinstance(call, ast.Call) and ast.unparse(call.func) == fn and objects:
        call.args[:0] = [ast.Name(n, ast.Load()) for n in objects]
        rewrite += f"\n{ast.unparse(tree)}"
    # under nnx.jit already (JAX 0.10.2 with Flax 0.12.7 raises the same): the arguments alone
    fix = (f"Pass {named} to {fn} as arguments: nnx.jit takes the Flax objects it is given "
           f"and writes their new state back after each call." if nnx else
           f"Pass {named} to {fn} as arguments and jit it with nnx.jit (it takes Flax "
           f"objects and writes their new state back after each call).")
    return ErrorCard(
        "closed-modules", f"Flax objects updated inside {jit} from outside it: {given}",
        why=(f"{fn} reads {named} from outside (a global or a closure) and updates "
             f"{'them' if len(objects) != 1 else 'it'} while {jit} traces it: their "
             f"variables belong to the outside, so Flax cannot take them into the trace."),
        fix=fix,
        rewrite=rewrite,
        docs="https://flax.readthedocs.io/en/latest/guides/transforms.html")
