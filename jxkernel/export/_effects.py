"""A library's effects in an export, as JAX 0.10.2's: `Exported.ordered_effects` (the types
registered in `effects.ordered_effects`) and `unordered_effects` (its other effects), and the
calling convention of a module with ordered effects: `main` takes one `!stablehlo.token`
per ordered effect after the platform index and before the arrays, and gives the next ones
back before the results (`jax.token = true` on each), and it calls the lowered function,
`_wrapped_jax_export_main`, which has the same signature (JAX wraps a module so where it has
ordered effects or symbolic shapes; jxkernel's modules over symbolic shapes read their sizes
in `main` itself and are not wrapped). A call of such an export passes the caller's tokens
for those effects and takes the ones it gives back.

    >>> export_effects([])
    ((), ())
"""
from __future__ import annotations

from ..core.ir import lowerable_effects
from ..xla import effect_tokens as _tokens
from ..xla import stablehlo as hlo

WRAPPED_MAIN = "_wrapped_jax_export_main"


def export_effects(effects) -> tuple[tuple, tuple]:
    """(ordered, unordered): a library's effects among `effects` (a jaxpr's), the ordered
    ones in the order their tokens are passed (effect_tokens.library_effects)."""
    return _tokens.library_effects(effects)


def wrap_main(module: hlo.Module, wrapped: hlo.Function) -> hlo.Function:
    """A public `main` first in `module`, of `wrapped`'s signature and attributes (its
    arguments unnamed), calling `wrapped` (made private), as JAX's `_wrap_main_func`."""
    wrapped.public = False
    main = module.function("main", [a.type for a in wrapped.args], wrapped.arg_attrs)
    main.platform_index = main.args[0] if wrapped.platform_index is not None else None
    outs = main.body.call(wrapped, list(main.args))
    main.set_results(outs, wrapped.result_attrs)
    module.functions.remove(main)
    module.functions.insert(0, main)       # (at the module's start, as JAX inserts it)
    return main


def call_tokens(ctx, exported) -> list:
    """The tokens a call of `exported` passes, one per its ordered effect (the caller's)."""
    return [ctx.tokens_in.get(e) for e in exported.ordered_effects]


def take_call_tokens(ctx, exported, outs) -> list:
    """The call's results less the tokens it gave back first, which become the caller's."""
    n = len(exported.ordered_effects)
    if n:
        ctx.set_tokens_out(_tokens.TokenSet(dict(zip(exported.ordered_effects, outs[:n]))))
    return outs[n:]


# ------------------------------------------------------------------ serialization
def effect_to_json(effect) -> str:
    """An effect as its class's text (`<class 'mod.Name'>`), after JAX's checks: the class
    makes an equal effect with no arguments (it is made so again when loading)."""
    try:
        replica = effect.__class__()
    except Exception as e:
        raise NotImplementedError(f"Effect {effect} must have a nullary constructor to be "
                                  f"serializable") from e
    try:
        same_hash = hash(effect) == hash(replica)
    except Exception as e:
        raise NotImplementedError(f"Effect {effect} must be hashable to be "
                                  f"serializable") from e
    if effect != replica or not same_hash:
        raise NotImplementedError(f"Effect {effect} must have a nullary class constructor that "
                                  f"produces an equal effect object.")
    return str(effect.__class__)


def effect_from_json(name: str):
    """The effect of the class named `name` among those registered in `lowerable_effects`
    (in this process), made with no arguments, as JAX's deserialization finds it."""
    for cls in lowerable_effects._types:
        if str(cls) == name:
            try:
                return cls()
            except Exception as e:
                raise NotImplementedError(f"deserializing effect {name} that does not have a "
                                          f"nullary class constructor") from e
    raise NotImplementedError(f"cannot deserialize effect type {name}")
