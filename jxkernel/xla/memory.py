"""The executables kept in memory by module text, and what happens when memory runs out:
jaxlib's out-of-memory errors recognised, the caches let go, and the guard that counts the
process's memory mappings before XLA's compile could crash at Linux's limit.

    >>> is_out_of_memory(MemoryError())
    True
    >>> previous = set_memory_cache_size(64); set_memory_cache_size(previous)
    64
"""
from __future__ import annotations

import functools
import gc
import os
import re

from ..core.lru import LRU
from . import client as _client


class OutOfMemoryError(_client.JaxRuntimeError, MemoryError):
    """The operating system or the device refused XLA memory (a compile's code pages, a run's
    buffers): a MemoryError, and the JaxRuntimeError JAX raises for RESOURCE_EXHAUSTED; the
    process lives on. A compile is tried once more after the cached executables are dropped."""


# The in-memory cache, by module text (cache_key): a re-run notebook cell (the same code, a
# new function object) finds its program here. Bounded, least recently used out, as JAX's
# `_cached_compilation` (a weakref_lru_cache of 2048): each executable holds ~3 memory
# mappings and its code, and the text key outlives the function (JAX's weak key does not), so
# the bound is what lets dropped functions' programs go. 512 holds every program of a long
# notebook session (~1,500 mappings, ~100 MB for tiny programs), far from vm.max_map_count
# (65,530). By count only: XLA:CPU reports no generated-code size (0 bytes) to weigh. JAX has
# no option for its in-memory bound; ours is JXKERNEL_MEMORY_CACHE_SIZE, or
# `set_memory_cache_size` at run time.
MEMORY_CACHE_SIZE = 512


def _size_from_environment() -> int:
    text = os.environ.get("JXKERNEL_MEMORY_CACHE_SIZE", "").strip()
    try:
        size = int(text) if text else MEMORY_CACHE_SIZE
        if size < 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"JXKERNEL_MEMORY_CACHE_SIZE must be a whole number of executables "
                         f">= 0 (0: keep none by text), got {text!r}") from None
    return size


_memory_cache = LRU(_size_from_environment())


def forget_executables(loaded) -> None:
    """Drop these jaxlib LoadedExecutables from the by-text cache (a jit's `clear_cache`:
    JAX frees the programs it dropped; another jit compiling the same text compiles again)."""
    ids = {id(x) for x in loaded}
    for key, value in _memory_cache.items():
        if id(value) in ids:
            _memory_cache.pop(key, None)


def set_memory_cache_size(size: int) -> int:
    """Keep at most `size` executables by module text from now on (the least recently used
    go); returns the previous bound. 0 keeps none: a re-run cell then recompiles.

    >>> previous = set_memory_cache_size(64); set_memory_cache_size(previous)
    64
    """
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError(f"set_memory_cache_size: size must be an int >= 0, got {size!r}")
    previous = _memory_cache.maxsize
    _memory_cache.resize(size)
    return previous


def clear_caches() -> None:
    """Forget in-memory executables (the disk cache stays)."""
    _memory_cache.clear()


# What jaxlib's messages say when memory ran out: XLA's status code, a C++ allocation that
# threw, mmap refused (ENOMEM, also at vm.max_map_count), or a device allocator's words.
_OUT_OF_MEMORY = re.compile(r"RESOURCE_EXHAUSTED|bad_alloc|out of memory|Cannot allocate memory|"
                            r"ENOMEM|Failed to allocate", re.I)


def is_out_of_memory(error: BaseException) -> bool:
    """Whether `error` (from jaxlib) says memory ran out.

    >>> is_out_of_memory(RuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 8 bytes"))
    True
    """
    return isinstance(error, MemoryError) or bool(_OUT_OF_MEMORY.search(str(error)))


def release_memory() -> None:
    """Let go of what jxkernel's caches hold that nothing else does: the executables kept by
    module text (a later compile of one of them recompiles), and cycles; then hand the heap's
    free pages back to the system."""
    _memory_cache.clear()
    gc.collect()
    trim_heap()


def trim_heap() -> None:
    """glibc keeps freed heap pages: after 3,000 eager compiles at the cache bounds, 41 of a
    process's 411 MiB were free pages that malloc_trim gave back (measured). Elsewhere: no-op."""
    try:
        import ctypes        # ctypes: only when memory ran out, never on import
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):     # not glibc
        pass


def out_of_memory(what: str, error: BaseException, released=True) -> OutOfMemoryError:
    """The error a user sees when memory ran out as jxkernel tried to `what`."""
    after = ", even after jxkernel dropped its cached executables" if released else ""
    return OutOfMemoryError(
        f"Out of memory: XLA could not {what}{after} ({str(error).strip()[:300]}). The "
        f"process holds {_mappings()} memory mappings (Linux's limit: vm.max_map_count) "
        f"and {_rss_mib()} MiB resident. Free memory: delete arrays and jitted functions you "
        f"no longer need, call jxkernel.clear_caches(), or run with less data; then try "
        f"again.")


def _mappings() -> str:
    count = _count_mappings()
    return "?" if count is None else str(count)


def _count_mappings() -> int | None:
    try:
        with open("/proc/self/maps", "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return None


@functools.lru_cache(maxsize=1)
def _max_map_count() -> int | None:
    """Linux's limit on a process's memory mappings (None elsewhere)."""
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


# At vm.max_map_count mmap fails inside XLA's compile, which throws a C++ exception its
# unwinder cannot handle: the process dies, and no Python error can be caught. So every
# _MAP_CHECK_EVERY compiles (a count reads /proc/self/maps: 3.4 ms at 7,000 mappings, against
# 10 ms or more per compile) the mappings are counted; past 90 % of the limit the by-text cache
# is dropped, and past 95 % still, OutOfMemoryError is raised instead of compiling.
_MAP_CHECK_EVERY = 16
_unchecked = [0]          # compiles since the last count


def _check_mappings() -> None:
    _unchecked[0] += 1
    if _unchecked[0] < _MAP_CHECK_EVERY:
        return
    _unchecked[0] = 0
    limit, count = _max_map_count(), _count_mappings()
    if limit is None or count is None or count < 0.9 * limit:
        return
    release_memory()
    count = _count_mappings()
    if count >= 0.95 * limit:
        raise out_of_memory("compile a program", MemoryError(
            f"{count} of the {limit} memory mappings Linux allows a process "
            f"(vm.max_map_count) are in use; the next compile could crash the process"))


def _rss_mib() -> str:
    try:
        with open("/proc/self/statm") as f:
            return str(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20)
    except (OSError, ValueError, IndexError):
        return "?"
