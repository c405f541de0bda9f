"""The card for a traced value given where a jnp function takes a static one (jnp.vander's N,
jnp.sort's axis, jnp.digitize's right): the function's inner jit cannot hash it, and JAX's
message names neither the argument nor the function (jit/args.py attaches both)."""
from __future__ import annotations

from .card import ErrorCard
from .reading import _origin, _static_or


def _is_jnp_static(e) -> bool:
    return isinstance(e, ValueError) and \
        str(e).startswith("Non-hashable static arguments are not supported.") and \
        hasattr(e, "argument") and hasattr(getattr(e, "value", None), "_trace")


def _jnp_static_card(exc, where, called_from) -> ErrorCard:
    name = getattr(exc.function, "__name__", "the function").lstrip("_")
    arg, origin = exc.argument, _origin(exc)
    source = origin and origin.get("argument")
    depends = f": it depends on {source}, an argument the jit traces" if source else ""
    last, rewrite = _static_or(origin, where, exc, "value", (
        f"Compute {arg} from Python values, outside the traced function, and pass it in as a "
        f"static argument (static_argnames), not from a traced array.",
        f"# jnp.{name}(..., {arg}=<a Python value>)    # not from a traced array"))
    fix = (f"jnp.{name}'s {arg} must be a Python value (a number, a bool), never a traced "
           f"array (under jit, vmap or grad). {last}")
    return ErrorCard(
        "jnp-static", f"jnp.{name}'s {arg} was given a traced value",
        why=(f"jnp.{name} takes {arg} as a static value: it shapes the program jnp.{name} "
             f"compiles (a size, an axis, a choice), so it must be known while tracing, and "
             f"here it is a traced array{depends}."),
        fix=fix, rewrite=rewrite, origin=origin,
        docs="https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static")
