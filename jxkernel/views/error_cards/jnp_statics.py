"""The cards for a value a jnp function's inner jit cannot hash where it takes a static one:
a traced value (jnp.vander's N, jnp.sort's axis, jnp.digitize's right), or a list or an array
(jnp.pad's stat_length=[1, 2]). JAX's message names neither the argument nor the function
(jit/args.py attaches both)."""
from __future__ import annotations

import ast

import numpy as np

from ..source_edits import replaced
from .card import ErrorCard
from .reading import _origin
from .static_fixes import _static_or
from .rewrites import _parse_line


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


def _is_jnp_unhashable(e) -> bool:
    """A list or an array (no tracer) where a function of jxkernel's takes a static value:
    jnp.pad's stat_length=[1, 2], jnp.sort's axis=[0]. JAX's message names a hash, not the
    argument, and the learner wrote no jit or static_argnums."""
    return isinstance(e, ValueError) and \
        str(e).startswith("Non-hashable static arguments are not supported.") and \
        hasattr(e, "argument") and not hasattr(getattr(e, "value", None), "_trace") and \
        getattr(getattr(e, "function", None), "__module__", "").startswith("jxkernel.")


def _jnp_unhashable_card(exc, where, called_from) -> ErrorCard:
    name = _public_name(exc.function)
    arg, value = exc.argument, exc.value
    what = "a list" if isinstance(value, list) else "an array" if hasattr(value, "shape") \
        else f"a {type(value).__name__}"
    hashable = _hashable(value)
    rewrite = _keyword_rewritten(where, arg, hashable) if hashable is not None else None
    if rewrite is None:
        rewrite = f"# {name}(..., {arg}=<a Python number, or a tuple of them>)"
    return ErrorCard(
        "jnp-unhashable", f"{name}'s {arg} was given {what}, which it cannot hash",
        why=(f"{name} takes {arg} as a static value (the program it compiles is specialised on "
             f"it), and a static value must be hashable: {what} is not."),
        fix=(f"Pass {arg} as a Python number, or a tuple of them" +
             (f": {arg}={hashable}." if hashable is not None else ".")),
        rewrite=rewrite, origin={"argument": arg, "function": name},
        docs="https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static")


def _public_name(function) -> str:
    """How the learner calls a function of jxkernel's: `jnp.pad` for numpy/pad.py's _pad."""
    module, name = function.__module__, function.__name__.lstrip("_")
    for package, public in (("jxkernel.numpy", "jnp"), ("jxkernel.nn", "jax.nn"),
                            ("jxkernel.lax", "jax.lax"), ("jxkernel.scipy", "jax.scipy")):
        if module == package or module.startswith(package + "."):
            return f"{public}.{name}"
    return name


def _hashable(value) -> str | None:
    """`value` written hashably, as source: one number for one (`axis=[0]`: 0, what an axis
    or a count takes), else its numbers with every list a tuple (`stat_length=[1, 2]`:
    (1, 2)); None where it holds something else (an object, a string)."""
    try:
        plain = np.asarray(value).tolist()
    except Exception:  # noqa: BLE001  (what NumPy cannot read has no tuple to write)
        return None

    def tuples(v):
        return tuple(tuples(x) for x in v) if isinstance(v, list) else v
    numbers = np.ravel(np.asarray(plain, object))
    if not all(isinstance(v, (int, float, bool)) for v in numbers):
        return None
    return repr(numbers[0]) if numbers.size == 1 else repr(tuples(plain))


def _keyword_rewritten(where, arg, hashable) -> str | None:
    """The learner's line with the keyword `arg=...` written `arg=hashable`; None where the
    line has no one such keyword."""
    tree = _parse_line(where)
    if tree is None:
        return None
    found = [k for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == arg]
    if len(found) != 1:
        return None
    return replaced(where["code"], [(found[0].value, hashable)])
