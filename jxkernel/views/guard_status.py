"""The no-recompile guard's status, as `%jxguard` shows it: which jitted functions refuse to
recompile now (`jxkernel.compile_record.fail_on_recompile`, `fail_on_any_recompile`).

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

import os

from ..core import compile_record
from .rich_view import RichView, esc
from .source import cell_name
from .schema import mime_type

GUARD_MIME = mime_type("GuardBundle")


class GuardStatus(RichView):
    """Which jitted functions refuse to recompile now (text, HTML, JSON)."""
    MIME = GUARD_MIME

    def __init__(self):
        self.all = compile_record.failing_on_any_recompile()
        self.functions = compile_record.failing_on_recompile()

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


__all__ = ["GuardStatus", "GUARD_MIME", "name_of", "where_of"]
