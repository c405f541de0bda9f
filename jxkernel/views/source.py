"""How the views label where an equation came from: 'model.py:12' and the line's text, and
which frames are the user's. The notebook layer installs its own labels when it loads
('In[3]:2' for a cell's line, a cell's name, nothing for the shell's own frames), as `xla/`
shows shardings through a hook: nothing here imports IPython.

    >>> import types
    >>> label(types.SimpleNamespace(file="/tmp/model.py", line=12))
    'model.py:12'
"""
from __future__ import annotations

import linecache
import os
import sysconfig

from ..core.source_info import PACKAGE_DIR, is_jxkernel_file, is_registered_exclusion
from ..core.traceback_util import include_filename


def plain_label(info) -> str:
    """'model.py:12' for an equation's source info ('' without one)."""
    return f"{os.path.basename(info.file)}:{info.line}" if info is not None else ""


def plain_line(info) -> str:
    """The text of the line an equation came from (linecache has cells too), stripped."""
    return linecache.getline(info.file, info.line).strip() if info is not None else ""


def plain_cell_name(filename) -> None:
    """Outside a notebook no file is a cell."""
    return None


# The standard library (its site-packages excepted) is no user's. A traceback's frames, not an
# equation's line (source_info.is_user_filename): files of no folder ("<string>", "<frozen
# importlib._bootstrap>") have no lines to show, and the notebook adds its cells back.
_STDLIB = os.path.join(sysconfig.get_paths()["stdlib"], "")
_SITE = tuple(os.path.join(sysconfig.get_paths()[k], "") for k in ("purelib", "platlib"))


def plain_is_user_file(filename: str) -> bool:
    """Whether a frame of `filename` is the user's: any file outside jxkernel and Python's
    standard library (installed packages count).

    >>> plain_is_user_file(os.__file__), plain_is_user_file(label.__code__.co_filename)
    (False, False)
    """
    if is_jxkernel_file(filename) or filename.startswith("<"):
        return False
    return not (filename.startswith(_STDLIB) and not filename.startswith(_SITE))


# what label(), line(), cell_name() and is_user_file() (with in_filtered_traceback()) call
_labels = [plain_label, plain_line, plain_cell_name, plain_is_user_file]


def install_labels(label_fn, line_fn, cell_fn=plain_cell_name,
                   user_file_fn=plain_is_user_file) -> None:
    """Label sources with `label_fn` and `line_fn`, name cells with `cell_fn` and tell the
    user's frames with `user_file_fn` from now on (the notebook's display)."""
    _labels[:] = [label_fn, line_fn, cell_fn, user_file_fn]


def label(info) -> str:
    return _labels[0](info)


def line(info) -> str:
    return _labels[1](info)


def cell_name(filename) -> str | None:
    """'In[3]' when `filename` is a notebook cell's, else None."""
    return _labels[2](filename)


def defined_at(source: str | None) -> str | None:
    """Where a function was defined, as a learner reads it: 'In[3]:1' for a cell's
    "file:line" (not the kernel's temporary file of the cell), jxkernel's own file from its
    package folder (not a path of this machine), any other file as it is.

        >>> defined_at(label.__code__.co_filename + ":7").replace(os.sep, "/")
        'jxkernel/views/source.py:7'
        >>> defined_at("model.py:12"), defined_at(None)
        ('model.py:12', None)
    """
    if not source:
        return source
    file, _, line = source.rpartition(":")
    cell = cell_name(file)
    if cell:
        return f"{cell}:{line}"
    if is_jxkernel_file(file):
        return "jxkernel" + os.sep + source[len(PACKAGE_DIR):]
    return source


def is_user_file(filename: str) -> bool:
    """Whether a frame of `filename` can be the user's line a card or note points at: a user's
    frame (the installed labels') that no library registered away with
    source_info.register_exclusion (JAX's source_info_util list, which picks the user's line).

    >>> is_user_file("/tmp/model.py"), is_user_file(label.__code__.co_filename)
    (True, False)
    """
    return _labels[3](filename) and not is_registered_exclusion(filename)


def in_filtered_traceback(filename: str) -> bool:
    """Whether a frame of `filename` stays in the notebook's filtered traceback: a user's
    frame (the installed labels') that traceback_util does not hide. A library registered with
    `jax._src.traceback_util.register_exclusion` (as Equinox and Flax register theirs) is
    hidden there, as JAX's own filtered traceback hides it.

    >>> in_filtered_traceback("/tmp/model.py"), in_filtered_traceback(os.__file__)
    (True, False)
    """
    return _labels[3](filename) and include_filename(filename)
