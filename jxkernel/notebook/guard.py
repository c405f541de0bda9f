"""The no-recompile guard in the notebook: `no_recompile` (the compile record's, re-exported) and
what `%jxguard` does and shows.

    %jxguard                 the guard's status
    %jxguard on              every jitted function: a RE-compile raises RecompileError
    %jxguard on f            only f (a jitted function in the namespace, a %%jit cell's
                             label such as cell[3], or a compile event's function_key)
    %jxguard off [f]         off for f; without f, off everywhere (every function's too)

    (it "would recompile"; "would trace again" on the NumPy backend, which compiles nothing)

    >>> f = jax.jit(lambda x: x * 2)
    >>> _ = f(jnp.ones(3))           # f compiled already; a new shape raises at this line
    >>> with no_recompile(f):        # doctest: +ELLIPSIS
    ...     f(jnp.ones(4))
    Traceback (most recent call last):
      ...
    jxkernel.core.errors.RecompileError: jit(<lambda>) would ... because x: f32[3] -> f32[4], and fail_on_recompile is on for it.
    ...

The status view is `GuardStatus` (jxkernel/views/guard_status.py, its JSON bundle there).
"""
from __future__ import annotations

from ..core import compile_record
from ..core.compile_record import no_recompile
from ..views.guard_status import GUARD_MIME, GuardStatus

ACTIONS = ("status", "on", "off")


def resolve(name: str, namespace: dict):
    """The jitted function `name` means: a name in `namespace`, else a compile event's
    function name (a %%jit cell's label) or function_key, the latest live one.

        >>> g = jax.jit(jnp.sin)
        >>> resolve("g", {"g": g}) is g       # resolve("cell[3]", {}): a %%jit cell's
        True
    """
    value = namespace.get(name)
    if value is not None:
        if not hasattr(value, "_fail_on_recompile"):
            raise ValueError(f"{name!r} is a {type(value).__name__}, not a jitted function: "
                             f"the guard works on jit(f) (or a %%jit cell's label)")
        return value
    for event in reversed(compile_record.compile_events()):
        if name in (event.function, event.function_key) and \
                hasattr(event.key, "_fail_on_recompile"):
            return event.key
    known = sorted({e.function for e in compile_record.compile_events()})
    raise ValueError(f"no jitted function {name!r}: not in the namespace, and no compile "
                     f"event names it (compiled so far: {', '.join(known) or 'none'})")


def set_guard(action: str, name: str | None, namespace: dict) -> GuardStatus:
    """%jxguard ACTION [NAME]: apply it, then the status."""
    if action not in ACTIONS:
        raise ValueError(f"the action must be one of {', '.join(ACTIONS)}; got {action!r}")
    if action == "status":
        if name is not None:
            raise ValueError("status takes no function: %jxguard status")
        return GuardStatus()
    enabled = action == "on"
    if name is not None:
        compile_record.fail_on_recompile(resolve(name, namespace), enabled)
    else:
        compile_record.fail_on_any_recompile(enabled)
        if not enabled:
            for key in compile_record.failing_on_recompile():
                compile_record.fail_on_recompile(key, False)
    return GuardStatus()


__all__ = ["GuardStatus", "no_recompile", "resolve", "set_guard", "GUARD_MIME"]
