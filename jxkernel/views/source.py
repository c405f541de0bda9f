"""How the views label where an equation came from: 'model.py:12' and the line's text. The
notebook layer installs its own labels when it loads ('In[3]:2' for a cell's line, nothing
for the shell's own frames), as `xla/` shows shardings through a hook: nothing here
imports IPython.

    >>> import types
    >>> label(types.SimpleNamespace(file="/tmp/model.py", line=12))
    'model.py:12'
"""
from __future__ import annotations

import linecache
import os


def plain_label(info) -> str:
    """'model.py:12' for an equation's source info ('' without one)."""
    return f"{os.path.basename(info.file)}:{info.line}" if info is not None else ""


def plain_line(info) -> str:
    """The text of the line an equation came from (linecache has cells too), stripped."""
    return linecache.getline(info.file, info.line).strip() if info is not None else ""


_labels = [plain_label, plain_line]       # what label() and line() call


def install_labels(label_fn, line_fn) -> None:
    """Label sources with `label_fn` and `line_fn` from now on (the notebook's display)."""
    _labels[:] = [label_fn, line_fn]


def label(info) -> str:
    return _labels[0](info)


def line(info) -> str:
    return _labels[1](info)
