"""Where code came from (cell and line) and the notes a magic shows; the formatters for
our types are formatters.py's.

Everything user-controlled that reaches HTML goes through `esc` (names, reprs,
messages, source text): a variable named `<script>` shows as text.
"""
from __future__ import annotations

import ast
import os
import re

from ..core.clipped_text import clipped
from ..views import source as _source
from ..views.rich_view import esc


def short_repr(value, limit: int = 60) -> str:
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001  a broken __repr__ must not break the view
        text = f"<{type(value).__name__}: repr failed: {e!r}>"
    return clipped(" ".join(text.split()), limit)


def cell_name(filename: str | None) -> str | None:
    """'In[3]' when `filename` is an IPython cell's, else None."""
    if not filename:
        return None
    try:
        from IPython import get_ipython
        shell = get_ipython()
        found = shell.compile.format_code_name(filename) if shell is not None else None
    except Exception:  # noqa: BLE001
        found = None
    return found[1] if found else None


def _package_dir(name):
    import importlib.util
    spec = importlib.util.find_spec(name)
    return os.path.dirname(spec.origin) + os.sep if spec and spec.origin else None


# Frames of the shell itself are no user's source: an equation made directly by a magic
# (say `%jaxpr lax.sin(x)`) has no user line.
SHELL_DIRS = tuple(d for d in map(_package_dir, ("IPython", "ipykernel")) if d)


def is_user_file(filename: str) -> bool:
    """Whether a frame of `filename` is the user's: a cell or any file outside jxkernel, the
    shell (IPython, ipykernel) and Python's standard library (installed packages count).

    >>> is_user_file(os.__file__), is_user_file(_source.__file__)
    (False, False)
    """
    if cell_name(filename):
        return True
    return not filename.startswith(SHELL_DIRS) and _source.plain_is_user_file(filename)


def name_of(obj, scope: dict) -> str | None:
    """The first public name `scope` (a module's globals, the notebook's) binds to `obj`
    itself, or None.

    >>> name_of(print, {"_p": print, "p": print})
    'p'
    """
    return next((n for n, v in list(scope.items()) if v is obj and not n.startswith("_")), None)


class Site:
    """A (file, line) as source_label takes one (a SourceInfo's fields).

    >>> source_label(Site("/tmp/model.py", 12))
    'model.py:12'
    """
    def __init__(self, file, line):
        self.file, self.line, self.function = file, line, ""


def not_told(records, told: set | None) -> list:
    """Those of `records` (each with .file and .line) at lines not in `told`, the loaded
    extension's (file, line) of lines told before (None: all), which they join: a line is
    told once."""
    if told is None:
        return list(records)
    new = [r for r in records if (r.file, r.line) not in told]
    told.update((r.file, r.line) for r in new)
    return new


def more_lines(records) -> str:
    """A note title's words for the lines of `records` past the first's (each with .file and
    .line, or a (file, line)): ' (and 2 more lines of this cell)', or ''.

        >>> more_lines([("a", 1), ("a", 2), ("a", 1)])
        ' (and 1 more line of this cell)'
    """
    lines = {(r.file, r.line) if hasattr(r, "file") else tuple(r) for r in records}
    more = len(lines) - 1
    return f" (and {more} more line{'s' if more > 1 else ''} of this cell)" if more > 0 else ""


def source_label(info) -> str:
    """'In[3]:2' for a cell line, 'file.py:12' otherwise; '' without (useful) source info."""
    if info is None or info.file.startswith(SHELL_DIRS):
        return ""
    cell = cell_name(info.file)
    return f"{cell}:{info.line}" if cell else f"{os.path.basename(info.file)}:{info.line}"


def source_line(info) -> str:
    """The text of the line `info` points at (cells are in linecache), stripped; a magic's
    line as typed (`%timeit f(x)`, not IPython's `get_ipython().run_line_magic(...)`)."""
    import linecache
    text = linecache.getline(info.file, info.line).strip() if info is not None else ""
    return _MAGIC_CALL.sub(_as_typed, text)


# how IPython rewrites a magic's line in a cell's code (the line linecache holds)
_MAGIC_CALL = re.compile(r"get_ipython\(\)\.run_(line|cell)_magic\((.*)\)$")


def _as_typed(found) -> str:
    """`%timeit -n1 f(x)` for IPython's run_line_magic('timeit', '-n1 f(x)'); `%%jit` (and
    its line) for a cell magic, whose body is the cell's other lines."""
    try:
        name, line = ast.literal_eval(f"({found.group(2)},)")[:2]
    except (ValueError, SyntaxError, TypeError):
        return found.group(0)
    prefix = "%" if found.group(1) == "line" else "%%"
    return f"{prefix}{name} {line}".rstrip()


# the views (jaxpr bundles, error cards) label cell lines and tell the user's frames as the
# notebook does, once it is loaded
_source.install_labels(source_label, source_line, cell_name, is_user_file)


class Note:
    """A short message shown in the output area: plain text, or a styled line in HTML."""
    # JupyterLab's theme colours (dark themes too), the light look where there are none
    _COLORS = {"info": "var(--jp-content-font-color2, #555)",
               "compile": "var(--jp-warn-color0, #8a5a00)",
               "warn": "var(--jp-error-color1, #b00020)",
               "print": "var(--jp-content-font-color1, #333)"}

    def __init__(self, title: str, body: str = "", kind: str = "info", details: bool = False):
        # details: in HTML the body opens on a click on the title (one line until then)
        self.title, self.body, self.kind, self.details = title, body, kind, details

    def __repr__(self):
        return self.title + ("\n" + self.body if self.body else "")

    def _repr_mimebundle_(self, include=None, exclude=None):
        color = self._COLORS.get(self.kind, self._COLORS["info"])
        # (JupyterLab's output <pre> breaks long lines anywhere, mid-word: "w|here")
        body = (f"<pre style='margin:2px 0 2px 1em;white-space:pre-wrap;word-break:normal;"
                f"overflow-wrap:anywhere'>{esc(self.body)}</pre>") if self.body else ""
        style = f"color:{color};font-family:monospace;font-size:90%"
        if self.details and self.body:
            # one line however long the title: cut with an ellipsis, whole in its tooltip
            summary = (f"<summary style='cursor:pointer;white-space:nowrap;overflow:hidden;"
                       f"text-overflow:ellipsis' title='{esc(self.title)}'>{esc(self.title)}"
                       f"</summary>")
            html = (f"<details class='jx-note jx-{esc(self.kind)}' style='{style}'>{summary}"
                    f"{body}</details>")
        else:
            html = f"<div class='jx-note jx-{esc(self.kind)}' style='{style}'>{esc(self.title)}{body}</div>"
        return {"text/plain": repr(self), "text/html": html}


def show(obj) -> None:
    from IPython.display import display
    display(obj)
