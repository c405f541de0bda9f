"""The no-recompile guard in the notebook: `no_recompile` (compile_log's, re-exported) and
what `%jxguard` does and shows.

    %jxguard                 the guard's status
    %jxguard on              every jitted function: a RE-compile raises RecompileError
    %jxguard on f            only f (a jitted function in the namespace, a %%jit cell's
                             label such as cell[3], or a compile event's function_key)
    %jxguard off [f]         off for f; without f, off everywhere (every function's too)

    >>> with no_recompile(f):       # f compiled already; a new shape raises at this line
    ...     f(jnp.ones(4))

The status view's JSON bundle, `application/vnd.jxkernel.guard+json`:

    {"version": 1, "all": bool (every jitted function guarded),
     "functions": [function_key, ...] (the functions guarded one by one),
     "where": ["In[2], line 1" or "model.py:12", ...] (where each was defined, as the user
              knows it: a cell by its prompt number, a file by its name)}

The text and HTML name each guarded function by its name and that place, not by its key
('f@/tmp/ipykernel_4692/1161316084.py:1#140389491386576'): the key stays in the JSON, for
tools, and is what `%jxguard on KEY` takes.
"""
from __future__ import annotations

from ..views import compile_log
from ..views.compile_log import no_recompile
from ..views.rich_view import RichView
import os

from .display import cell_name, esc

GUARD_MIME = "application/vnd.jxkernel.guard+json"
ACTIONS = ("status", "on", "off")


class GuardStatus(RichView):
    """Which jitted functions refuse to recompile now (text, HTML, JSON)."""
    MIME = GUARD_MIME

    def __init__(self):
        self.all = compile_log.failing_on_any_recompile()
        self.functions = compile_log.failing_on_recompile()

    def __repr__(self):
        every = "on" if self.all else "off"
        lines = [f"recompile guard for every jitted function: {every}"]
        if self.functions:
            lines.append("guarded one by one:")
            lines += [f"  {name_of(key)} ({where_of(key)})" for key in self.functions]
        elif not self.all:
            lines.append("no function is guarded (%jxguard on [FUNCTION] turns it on)")
        return "\n".join(lines)

    def _repr_html_(self):
        lines = repr(self).split("\n")
        rest = "".join(f"<div><code>{esc(line.strip())}</code></div>" if line.startswith("  ")
                       else f"<div>{esc(line)}</div>" for line in lines[1:])
        return f"<div class='jx-guard'><b>{esc(lines[0])}</b>{rest}</div>"

    def to_json(self) -> dict:
        return {"version": 1, "all": self.all, "functions": list(self.functions),
                "where": [where_of(key) for key in self.functions]}


def name_of(key: str) -> str:
    """The function's name in a function_key 'name@file:line#identity'."""
    return key.partition("@")[0] or key


def where_of(key: str) -> str:
    """Where a function_key's function was defined: 'In[2], line 1' for a cell, 'file.py:12'
    for a file, '?' when the key says nowhere."""
    source = key.partition("@")[2].rpartition("#")[0] or key.partition("@")[2]
    file, _, line = source.rpartition(":")
    if not file or not line.isdigit():
        return source or "?"
    cell = cell_name(file)
    return f"{cell}, line {line}" if cell else f"{os.path.basename(file)}:{line}"



def resolve(name: str, namespace: dict):
    """The jitted function `name` means: a name in `namespace`, else a compile event's
    function name (a %%jit cell's label) or function_key, the latest live one.

        >>> resolve("cell[3]", {})          # the %%jit cell's jitted function
        <PjitFunction of <function cell[3] at 0x...>>
    """
    value = namespace.get(name)
    if value is not None:
        if not hasattr(value, "_fail_on_recompile"):
            raise ValueError(f"{name!r} is a {type(value).__name__}, not a jitted function: "
                             f"the guard works on jit(f) (or a %%jit cell's label)")
        return value
    for event in reversed(compile_log.compile_events()):
        if name in (event.function, event.function_key) and \
                hasattr(event.key, "_fail_on_recompile"):
            return event.key
    known = sorted({e.function for e in compile_log.compile_events()})
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
        compile_log.fail_on_recompile(resolve(name, namespace), enabled)
    else:
        compile_log.fail_on_any_recompile(enabled)
        if not enabled:
            for key in compile_log.failing_on_recompile():
                compile_log.fail_on_recompile(key, False)
    return GuardStatus()


__all__ = ["GuardStatus", "no_recompile", "resolve", "set_guard", "GUARD_MIME"]
