"""The on-disk executable cache: serialized executables by cache key, so that a restarted
notebook kernel skips XLA's compile (60 ms to seconds, against ~2 ms to load).
``cache_dir()`` is ``~/.cache/jxkernel/xla`` by default, None with the cache off; an entry is
checked against its digest before XLA reads it. With jax_explain_cache_misses, the lines JAX
logs of its persistent cache ("PERSISTENT COMPILATION CACHE MISS ...") are made here too.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import platform as _platform
import re
import threading
import warnings

from ..core.config import config


# An entry is MAGIC + sha256(payload) + payload. The digest catches truncated or garbled
# files before they reach XLA's deserializer (which would run a garbled executable).
_MAGIC = b"JXKXLA1\n"
_DIGEST = hashlib.sha256().digest_size


def cache_dir() -> str | None:
    """The folder of the on-disk executable cache, or None when it is disabled.

    Set with ``config.update("jax_compilation_cache_dir", path)`` or the environment
    variable JXKERNEL_COMPILATION_CACHE_DIR; bound its size in bytes with
    ``jax_compilation_cache_max_size`` (least recently used entries go); disable with
    ``config.update("jax_enable_compilation_cache", False)`` or JXKERNEL_COMPILATION_CACHE=0.
    Default: ``$XDG_CACHE_HOME/jxkernel/xla`` (``~/.cache/jxkernel/xla``).
    """
    if not config.jax_enable_compilation_cache:
        return None
    if config.jax_compilation_cache_dir:
        return os.path.expanduser(str(config.jax_compilation_cache_dir))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jxkernel", "xla")


def user_configured() -> bool:
    """Whether the user set a cache folder, with the cache on: JAX's "persistent cache
    enabled" (JAX keeps no folder otherwise). jxkernel's default folder is used either way;
    this decides only whether JAX's persistent-cache lines are logged at WARNING, as JAX's.

    >>> user_configured() == bool(config.jax_enable_compilation_cache and
    ...                           config.jax_compilation_cache_dir)
    True
    """
    return bool(config.jax_enable_compilation_cache and config.jax_compilation_cache_dir)


def min_compile_time() -> float:
    """How long a program must have taken to compile to be written to disk: in a folder the
    user set (JAX's persistent cache), jax_persistent_cache_min_compile_time_secs (1 s by
    default, as JAX's: "Not writing ... < 1.00 seconds" for a quick one); in jxkernel's
    default folder, which JAX has not, no minimum, so that a restarted kernel loads every
    program it compiled before (JAX, which keeps no folder then, has nothing to load).

    >>> min_compile_time() == (config.jax_persistent_cache_min_compile_time_secs
    ...                        if user_configured() else 0.0)
    True
    """
    return config.jax_persistent_cache_min_compile_time_secs if user_configured() else 0.0


def set_cache_dir(path) -> None:
    """Keep compiled programs in the folder `path` from now on, and look for them there
    (JAX's `jax.experimental.compilation_cache.compilation_cache.set_cache_dir`).

    >>> before = config.jax_compilation_cache_dir
    >>> set_cache_dir("/tmp/jx-cache"); config.jax_compilation_cache_dir
    '/tmp/jx-cache'
    >>> set_cache_dir(before)          # the folder it had (None: the default one)
    """
    config.update("jax_compilation_cache_dir", path)


def reset_cache() -> None:
    """The cache as at start: the folder is read again at the next compile (it is read at
    each one here) and a folder it could not write warns again.

    >>> reset_cache()
    """
    _warn_once.cache_clear()


@functools.lru_cache(maxsize=1)
def _host_fingerprint() -> str:
    """The host CPU: a CPU executable holds machine code for it (a shared home folder may
    be read from machines with other instruction sets)."""
    parts = [_platform.machine()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    parts.append(line.strip())
                    if len(parts) >= 3:
                        break
    except OSError:
        parts.append(_platform.processor())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _disk_path(key: str) -> str | None:
    folder = cache_dir()
    if folder is None or config.jax_compilation_cache_max_size == 0:   # 0: JAX's "disabled"
        return None
    return os.path.join(folder, key + ".xla")


def _disk_load(path, backend, device_list, options):
    """The executable stored at `path`, or None (missing, corrupt or unloadable: removed)."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    head = len(_MAGIC) + _DIGEST
    payload = blob[head:]
    if blob[:len(_MAGIC)] != _MAGIC or hashlib.sha256(payload).digest() != blob[len(_MAGIC):head]:
        _remove_quietly(path)
        return None
    try:
        loaded = backend.client.deserialize_executable(payload, device_list, options)
    except Exception:
        _remove_quietly(path)       # e.g. written by an incompatible build: recompile, replace
        return None
    if config.jax_compilation_cache_max_size > 0:
        try:
            os.utime(path)          # used now: the size bound deletes the least recently used
        except OSError:
            pass
    return FromDisk(loaded, payload)


class FromDisk:
    """An executable loaded from the cache, with the bytes it was loaded from. jaxlib 0.10.2
    serializes such an executable without its compiled kernels (loaded again, it fails with
    "Function wrapped_add not found"): serialize_executable hands on these bytes instead."""
    __slots__ = ("_loaded", "payload")

    def __init__(self, loaded, payload: bytes):
        self._loaded, self.payload = loaded, payload

    def __getattr__(self, name):            # (execute_sharded, get_hlo_text, ...: jaxlib's)
        return getattr(self._loaded, name)


def _disk_store(path, loaded) -> None:
    folder = os.path.dirname(path)
    try:
        payload = loaded.serialize()
        os.makedirs(folder, exist_ok=True)
        import tempfile     # here: it loads random and hashlib's sha512, ~0.4 MB; reads skip it
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, path)   # atomic: a concurrent reader never sees half a file
        except BaseException:
            _remove_quietly(tmp)
            raise
        if config.jax_compilation_cache_max_size > 0:
            _shrink_folder(folder, config.jax_compilation_cache_max_size, keep=path)
    except Exception as e:          # a read-only or full disk must not break compiling
        _warn_once(f"jxkernel could not write its compilation cache in {folder!r} ({e}); "
                   f"compiling goes on without it. Set jax_compilation_cache_dir "
                   f"(JXKERNEL_COMPILATION_CACHE_DIR) to a writable folder, or disable the cache.")


def _shrink_folder(folder: str, max_size: int, keep: str) -> None:
    """Delete the least recently used entries (by modification time: a load touches its
    file) until the folder's entries hold at most `max_size` bytes, as JAX's
    `jax_compilation_cache_max_size` does; `keep` (the entry just written) goes last."""
    entries = []
    with os.scandir(folder) as found:
        for entry in found:
            if entry.name.endswith(".xla"):
                try:
                    stat = entry.stat()
                except OSError:         # another process removed it
                    continue
                entries.append((entry.path == keep, stat.st_mtime, stat.st_size, entry.path))
    total = sum(size for _, _, size, _ in entries)
    for _, _, size, path in sorted(entries):
        if total <= max_size:
            break
        _remove_quietly(path)
        total -= size


@functools.lru_cache(maxsize=None)
def _warn_once(message):
    warnings.warn(message, RuntimeWarning, stacklevel=4)


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


# jax_explain_cache_misses also tells the persistent cache's misses and writes, as JAX's
# (jax._src.compiler, jax._src.compilation_cache: WARNING where a cache folder was set, and
# else DEBUG); jxkernel's own logger for them, apart from the tracing misses'
_persistent_logger = logging.getLogger("jxkernel.compilation_cache")
_MODULE_NAME = re.compile(r"module @([\w.$-]+)")


def _persistent_level() -> int:
    """The level of JAX's persistent-cache miss and write lines: WARNING with
    jax_explain_cache_misses on and a cache folder set by the user (JAX has no folder
    otherwise: compilation_cache.is_persistent_cache_enabled), else DEBUG."""
    return logging.WARNING if config.jax_explain_cache_misses and user_configured() \
        else logging.DEBUG


def _cache_line(lines: list, level: int, message: str, *args) -> None:
    """One persistent-cache line of a compile, onto `lines` (where enabled at all)."""
    if _persistent_logger.isEnabledFor(level):
        lines.append((level, message, args))


def _log_lines(lines) -> None:
    for level, message, args in lines:
        _persistent_logger.log(level, message, *args)


def _log_persistent(lines: list, message: str, text: str, key) -> None:
    """One of JAX's persistent-cache lines about module `text` (named as JAX names it,
    "jit_f"; its key "jit_f-<sha256>"), at `_persistent_level()`, onto `lines`."""
    name, named_key = _module_and_key(text, key or "")
    _cache_line(lines, _persistent_level(), message,
                *((name,) if key is None else (name, named_key)))


_holding = threading.local()


@contextlib.contextmanager
def cache_lines_held():
    """Inside, compile_module keeps its persistent-cache lines on the Phases it returns, for
    the compile's record to log them after the tracing-cache miss (Phases.log_cache_lines):
    JAX logs the miss as it traces, before lowering and compiling, so its persistent-cache
    lines come after it.

    >>> with cache_lines_held():
    ...     _held_back()
    True
    """
    outer = getattr(_holding, "on", False)
    _holding.on = True
    try:
        yield
    finally:
        _holding.on = outer


def _held_back() -> bool:
    return getattr(_holding, "on", False)


def _module_and_key(text, key) -> tuple:
    """("jit_f", "jit_f-<key>"): module `text`'s name and its key as JAX writes them."""
    found = _MODULE_NAME.match(text) if isinstance(text, str) else None
    name = found.group(1) if found else "module"
    return name, f"{name}-{key}"
