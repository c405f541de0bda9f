"""The compiled fast path (`_fastpath.c`), loaded if it was built at install, else None.

`native` is the extension module or None; the classes with a hot method choose it in their
body, so a reader sees there what runs (core/primitive.py, transforms/jit/function.py, xla/array.py,
numpy/array_methods.py):

    bind = native.bind(_python_bind) if native else _python_bind

The extension is built by `hatch_build.py` when jxkernel is installed (a wheel, or `pip install
-e .`) where a C compiler and Python's headers exist; nothing is compiled at run time. Without
it (no compiler at install, Windows, Pyodide, a free-threaded Python, a build older than the C
source beside it) or with ``JXKERNEL_FASTPATH=0``, the Python methods run alone and do the
same work. `STATE` says which, and why; `python -m jxkernel` and `%jxbackend` show it.

    >>> STATE.startswith(("on", "off"))
    True
"""
from __future__ import annotations

import hashlib
import importlib
import os
import sys

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_fastpath.c")
REBUILD = "uv pip install -e . (or python hatch_build.py) in the checkout, with a C compiler"


def enabled() -> bool:
    """Whether the environment allows the extension (JXKERNEL_FASTPATH=0 switches it off)."""
    return os.environ.get("JXKERNEL_FASTPATH", "1").strip().lower() not in (
        "0", "false", "no", "off")


def _stale(module) -> bool:
    """Whether `module` was built from another _fastpath.c than the one beside it (an
    editable checkout whose C changed since its install); a wheel's always matches."""
    try:
        with open(SOURCE, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest() != module.SOURCE_SHA256
    except OSError:                 # no source beside it: nothing to compare with
        return False


def _load() -> tuple:
    """(the extension or None, its state in words)."""
    if not enabled():
        return None, "off (JXKERNEL_FASTPATH=0): the Python path runs"
    if sys.platform == "emscripten":
        # (no advice to rebuild: a browser's Python has no checkout and no C compiler)
        return None, ("off (in the browser, whose Python is WebAssembly: jxkernel's wheel "
                      "there is pure Python): the Python path runs")
    try:        # the compiled module beside this one, if hatch_build.py built it
        module = importlib.import_module(f"{__package__}._fastpath")
    except ImportError as e:
        return None, (f"off (not built at install: {e}): the Python path runs; to build it: "
                      f"{REBUILD}")
    if _stale(module):
        return None, (f"off (built from an older _fastpath.c than {SOURCE}): the Python path "
                      f"runs; to rebuild it: {REBUILD}")
    return module, f"on (compiled: {module.__file__})"


native, STATE = _load()
