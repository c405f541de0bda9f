"""The compiled cache hit (`_fastpath.c`): built on first use, cached, optional.

jit's last hit and an eager primitive's last run are checked and run by a small C extension
when one can be had; otherwise (no C compiler, no Python headers, Windows, or
``JXKERNEL_FASTPATH=0``) the Python paths in transforms/jit.py and xla/dispatch.py do the same
work. Why a build on first use rather than a compiled wheel: the wheel stays pure Python
(one wheel for every platform, `pip install -e .` compiles nothing), and the machine's own
compiler builds it once, into ``$XDG_CACHE_HOME/jxkernel/fastpath`` (or
``JXKERNEL_FASTPATH_CACHE_DIR``), under a name keyed by the Python version and the source's
hash, as numba and cffi cache theirs. `import jxkernel` does not load it: the first jit hit or
eager run that makes a `Hit` does (about 0.5 s the first time on a machine, a
millisecond's import afterwards).

    >>> native() is None or hasattr(native(), "Hit")
    True
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys

_log = logging.getLogger("jxkernel.fastpath")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_fastpath.c")
MISS = type("Miss", (), {"__repr__": lambda self: "MISS", "__slots__": ()})()  # Hit: no match
_module = None
_tried = False


def enabled() -> bool:
    """Whether the environment allows the extension (JXKERNEL_FASTPATH=0 switches it off)."""
    return os.environ.get("JXKERNEL_FASTPATH", "1").strip().lower() not in (
        "0", "false", "no", "off")


def native():
    """The compiled module (set up, with its `Hit` type), or None where it cannot be had.
    Tried once per process; a failure is logged at debug level and the Python path stays."""
    global _module, _tried
    if _tried:
        return _module
    _tried = True
    if not enabled():
        _log.debug("fast path off (JXKERNEL_FASTPATH=%s)", os.environ.get("JXKERNEL_FASTPATH"))
        return None
    try:
        module = _load()
        # here, not at the top: the extension is optional and only a first cache hit loads it
        from ..core.config import config
        from ..core.trace import _ctx, eval_trace
        from .array import Array
        module.setup(config, _ctx, eval_trace, MISS, Array)
        # the hot calls' own entry points (each falls back to the Python method it replaces):
        # Array.block_until_ready here, Primitive.bind (xla/dispatch.py) and a jitted
        # function's __call__ (transforms/jit.py) through on_load
        module.install_ready(python_method(Array, "block_until_ready"))
        for install in _on_load:
            install(module)
        _module = module
    except Exception as e:                  # no compiler, no headers, an unwritable cache...
        _log.debug("fast path unavailable, the Python path runs instead: %s", e)
    return _module


_on_load: list = []          # install(module) for each layer above with an entry point
_python_methods: dict = {}   # (class, name) -> the Python method an entry point replaced


def on_load(install) -> None:
    """Run `install(module)` when the extension loads (at once if it has): how the modules
    that import this one (dispatch, transforms/jit.py) put their entry points in."""
    _on_load.append(install)
    if _module is not None:
        install(_module)


def python_method(cls, name):
    """`cls`'s own Python method `name`, as first seen (a second load must not take the
    installed entry point for the method it falls back to)."""
    return _python_methods.setdefault((cls, name), cls.__dict__[name])


def cache_dir() -> str:
    base = os.environ.get("JXKERNEL_FASTPATH_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                            os.path.join(os.path.expanduser("~"), ".cache"), "jxkernel",
                            "fastpath")
    return base


def library_path() -> str:
    """Where the built extension for this Python and this source lives."""
    import sysconfig                    # (these imports wait for the first hit: import stays light)
    with open(SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return os.path.join(cache_dir(), f"_fastpath-{sys.implementation.cache_tag}-{digest}{suffix}")


def _load():
    path = library_path()
    if not os.path.exists(path):
        _build(path)
    spec = importlib.util.spec_from_file_location("jxkernel.xla._fastpath", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiler() -> list:
    import shlex
    import shutil
    import sysconfig
    configured = shlex.split(sysconfig.get_config_var("CC") or "")
    for cc in ([configured[0]] if configured else []) + ["cc", "gcc", "clang"]:
        found = shutil.which(cc)
        if found:
            return [found]
    raise RuntimeError("no C compiler (cc, gcc, clang) on PATH")


def _build(path: str) -> None:
    """Compile SOURCE into `path`: into a temporary file first, then renamed, so processes
    building at once each get a whole file."""
    import subprocess
    import sysconfig
    import tempfile
    if sys.platform == "win32":
        raise RuntimeError("not built on Windows")
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        raise RuntimeError(f"no Python.h in {include}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else \
        ["-shared"]
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=os.path.dirname(path))
    os.close(fd)
    try:
        cmd = _compiler() + ["-O2", "-fPIC", "-w", f"-I{include}", *link, SOURCE, "-o", tmp]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
        os.replace(tmp, path)
        _log.debug("fast path built: %s", path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def jit_hit(avals, where, generation, exe, finish, entry, kinds=None, consts=()):
    """A `Hit` for a jit cache entry whose executable is plain (one device, no donation,
    no host callbacks), or None. `kinds`: per argument None (an Array) or the Python scalar
    type taken there (array.scalar_kinds), for calls such as f(x, 2.0); `consts`: the
    buffers of its closed-over constants, passed before the arguments."""
    module = native()
    if module is None or not getattr(exe, "plain", False):
        return None
    from .array import scalar_buffer       # (array imports nothing of this module's users)
    return module.Hit(tuple(avals), where, generation, exe._execute, exe.handlers,
                      tuple(exe.out_avals), finish, entry, None, True, kinds,
                      scalar_buffer if kinds is not None else None, tuple(consts))


def eager_hit(avals, where, generation, exe, params, single):
    """A `Hit` for an eager primitive's last run (`single`: return the one output), or None."""
    module = native()
    if module is None or not avals or not getattr(exe, "plain", False):
        return None
    import operator
    return module.Hit(tuple(avals), where, generation, exe._execute, exe.handlers,
                      tuple(exe.out_avals), operator.itemgetter(0) if single else None, None,
                      params, False, alike=_alike(avals))


def _alike(avals) -> int:
    """For Array's operators in C: 2 for two operands of one inexact type, 1 of one integer
    type (not bool), else 0 (jnp's promotion would change something, or nothing is known)."""
    from ..core import dtypes               # (with the first eager Hit, as this module's rest)
    if len(avals) != 2 or avals[0] != avals[1]:
        return 0
    dtype = avals[0].dtype
    return 2 if dtype in dtypes.INEXACT_DTYPES else 1 if dtype in dtypes.INT_DTYPES else 0
