"""Compile StableHLO text with PJRT, cache executables, and run them.

    >>> loaded, phases = compile_module(text, [device])         # phases.cache: "compiled"
    >>> exe = Executable(loaded, out_avals, device)
    >>> exe(np.ones(3, np.float32))                             # -> [Array(...)]

Two caches: in memory (module text + devices -> executable) and on disk
(serialized executables, so a restarted notebook kernel skips XLA's compile:
60 ms to seconds, against ~2 ms to load; see `cache_dir`).

Replicated programs: pass N devices; the module runs once per device
(num_replicas=N) and each parameter is fed one N-shard buffer (one shard per
device). Results come back stacked along a new leading device axis, as pmap's.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import gc
import hashlib
import os
import platform as _platform
import re
import time
import warnings
import weakref

import numpy as np

from ..core.config import config
from ..core.avals import ShapedArray
from ..core.lru import LRU
from . import client as _client
from .array import Array, DeletedArrayError, host_to_device, sharding_for
from .host_values import _host_value
from .multi_device import MultiDeviceArray, assemble
from .transfers import device_put
from .client import xc

# After .client, which sets jaxlib's log level before jaxlib loads. Part of disk-cache keys.
if xc is not None:
    from jaxlib.version import __version__ as _jaxlib_version  # noqa: E402


class CompileError(RuntimeError):
    """XLA refused a module; the message shows the offending line of it."""


class ExecutionError(RuntimeError):
    """XLA could not run a compiled program with the arguments it was given."""


class OutOfMemoryError(_client.JaxRuntimeError, MemoryError):
    """The operating system or the device refused XLA memory (a compile's code pages, a run's
    buffers): a MemoryError, and the JaxRuntimeError JAX raises for RESOURCE_EXHAUSTED; the
    process lives on. A compile is tried once more after the cached executables are dropped."""


class CallbackError(_client.JaxRuntimeError):
    """A Python host callback (debug.print, debug.callback, pure_callback) failed while its
    program ran; the callback's own exception is the `__cause__`. A JaxRuntimeError, the class
    JAX raises for a failed callback (libraries catch it: Equinox's runtime errors)."""


# The host function records its error here: XLA passes on only the text, and may call it on
# another thread than the caller's.
_callback_errors: list = []


def record_callback_error(error: CallbackError) -> None:
    _callback_errors.append(error)


# The custom-call target of Python callbacks. Running one in a program compiled without its
# host callbacks crashes the process (docs/jaxlib.md §7), so compile_module refuses that.
# The custom calls that run Python functions on the host (the CPU's, the CUDA plugin's)
HOST_CALLBACK_TARGETS = ("xla_ffi_python_cpu_callback", "xla_ffi_python_gpu_callback")


# ------------------------------------------------------------------ compiling
@dataclasses.dataclass(frozen=True)
class Phases:
    """Seconds one compile spent per phase, and which cache (if any) gave the executable:
    the record of the compile pipeline (xla/pipeline.py), which the recompile log and the
    timing views read. `compile_module` fills `compile_s` and `cache`; the pipeline adds
    `lower_s`, and `trace_s` from its caller.

    >>> Phases(0.25, 0.125, 0.5, "disk").total_s
    0.875
    """
    trace_s: float = 0.0
    lower_s: float = 0.0
    compile_s: float = 0.0
    cache: str = "compiled"           # "compiled", "memory" or "disk"

    @property
    def total_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s


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


def _compile_options(devices, propagate_outputs=None, compiler_options=None):
    """CompileOptions for one replica per device, or (`propagate_outputs` given: per result,
    whether XLA picks its sharding) one program partitioned over `devices` by Shardy.
    `compiler_options` ({name: value}) sets XLA's debug options by name, as JAX's
    `Lowered.compile(compiler_options=...)` does; XLA rejects an unknown name."""
    options = xc.CompileOptions()
    if compiler_options:
        options.env_option_overrides = list(compiler_options.items())
    ids = [d.id for d in devices]
    if propagate_outputs is None:
        options.num_replicas, options.num_partitions = len(devices), 1
        # Always name the devices: left out, the assignment defaults to device 0 even when the
        # program is compiled for (and called with buffers on) another device.
        assignment = [[i] for i in ids]
    else:
        options.num_replicas, options.num_partitions = 1, len(devices)
        build = options.executable_build_options
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
        build.allow_spmd_sharding_propagation_to_output = list(propagate_outputs)
        assignment = [ids]
    options.device_assignment = xc.DeviceAssignment.create(np.array(assignment, dtype=np.int32))
    if config.jax_disable_most_optimizations:         # the three debug options JAX sets for it
        debug = options.executable_build_options.debug_options
        debug.xla_backend_optimization_level = 0
        debug.xla_llvm_disable_expensive_passes = True
        debug.xla_test_all_input_layouts = False
    return options


def _layout_text(devices, propagate_outputs) -> str:
    """How a program is laid out over its devices, as `cache_key` names it."""
    ids = [d.id for d in devices]
    if propagate_outputs is None:
        return f"replicas={len(devices)};assignment={ids}"
    return (f"partitions={len(devices)};shardy;outputs={list(propagate_outputs)};"
            f"assignment={ids}")


def cache_key(text: str, devices, propagate_outputs=None, compiler_options=None) -> str:
    """The key of a compiled program in both caches (memory, and disk as the file name):
    the module, its layout over `devices`, and all that changes the code XLA makes of it.

    >>> len(cache_key("module {}", jxkernel.devices()[:1]))      # a sha256, in hex
    64
    """
    backend = _client.backend_of(devices[0])
    h = hashlib.sha256()
    # XLA_FLAGS and the optimization switch change code generation (--xla_cpu_max_isa, FMA
    # contraction), so they are part of the key.
    for part in (text, _layout_text(devices, propagate_outputs), backend.platform,
                 backend.platform_version, _jaxlib_version, devices[0].device_kind,
                 _host_fingerprint(), os.environ.get("XLA_FLAGS", ""),
                 config.jax_disable_most_optimizations, sorted((compiler_options or {}).items())):
        h.update(str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def compile_module(text: str, devices, num_replicas: int | None = None,
                   host_callbacks=(), propagate_outputs=None, compiler_options=None) -> tuple:
    """(LoadedExecutable, Phases) for module `text`, one replica per device; the Phases
    hold the compile time and where the executable came from. `compiler_options`: XLA's
    options by name ({"xla_cpu_enable_fast_math": False}), part of the cache key.

    >>> loaded, phases = compile_module(text, jxkernel.devices()[:1])
    >>> phases.cache                     # "compiled", then "memory" for the same text
    'compiled'
    """
    devices = tuple(devices)
    if num_replicas is not None and num_replicas != len(devices):
        raise ValueError(f"num_replicas={num_replicas} but {len(devices)} devices were given; "
                         f"pass one device per replica")
    # Both caches follow `jax_enable_compilation_cache`: off, every module compiles afresh
    # (what benchmarks of compile time need). Host callbacks are Python objects bound at
    # compile time: such programs are never cached.
    key = cache_key(text, devices, propagate_outputs, compiler_options) \
        if not host_callbacks and config.jax_enable_compilation_cache else None
    if key is not None:
        hit = _memory_cache.get(key)
        if hit is not None:
            return hit, Phases(cache="memory")
    if not host_callbacks and any(target in text for target in HOST_CALLBACK_TARGETS):
        raise ValueError("This module calls Python host callbacks, but compile_module got no "
                         "host_callbacks; pass host_callbacks=module_ctx.host_callbacks (from "
                         "lower_module).")
    _check_mappings()
    backend = _client.backend_of(devices[0])
    options = _compile_options(devices, propagate_outputs, compiler_options)
    device_list = xc.DeviceList(devices)
    start = time.perf_counter()
    path = None if key is None else _disk_path(key)
    loaded = _disk_load(path, backend, device_list, options) if path else None
    source = "disk"
    if loaded is None:
        source = "compiled"
        try:
            loaded = _compile(backend, text, device_list, options, host_callbacks)
        except CompileError as e:
            # a bad option name is the caller's mistake, not the module's: JAX's error class
            if compiler_options and "No such compile option" in str(e):
                raise _client.JaxRuntimeError(
                    f"{e} (compiler_options={compiler_options!r}: pass names of XLA's "
                    f"DebugOptions, such as 'xla_cpu_enable_fast_math')") from None
            raise
        elapsed = time.perf_counter() - start
        if path and elapsed >= config.jax_persistent_cache_min_compile_time_secs:
            _disk_store(path, loaded)
    if host_callbacks:
        loaded = _WithHostCallbacks(loaded, tuple(host_callbacks))
    phases = Phases(compile_s=time.perf_counter() - start, cache=source)
    if key is not None:
        _memory_cache[key] = loaded
    return loaded, phases


def _compile(backend, text, device_list, options, host_callbacks):
    # looked up as this module's attribute at each compile: what replaces it (Chex's
    # restrict_backends, through jax._src.compiler) sees every compile, and its errors pass
    module = _parse_ir(text) if host_callbacks else text
    return backend_compile_and_load(backend, module, device_list, options, host_callbacks)


def backend_compile_and_load(backend, module, executable_devices, options, host_callbacks=()):
    """XLA's compile of `module` (StableHLO text, or an `ir.Module` where host callbacks ride
    along) for `executable_devices` on `backend` (an `xla.client.Backend`: `.platform`
    names it): jxkernel's one call into jaxlib's compiler, under JAX's name
    (`jax._src.compiler.backend_compile_and_load`). Refused memory, it lets go of the cached
    executables and tries once more, then raises OutOfMemoryError."""
    for attempt in (0, 1):
        try:
            if host_callbacks:
                return backend.client.compile_and_load(module, executable_devices, options,
                                                       host_callbacks=list(host_callbacks))
            return backend.client.compile_and_load(module, executable_devices, options)
        except Exception as e:
            if not is_out_of_memory(e):
                raise CompileError(_explain_compile_error(e, str(module))) from None
            if attempt:
                raise out_of_memory("compile a program", e) from None
            release_memory()


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


def _parse_ir(text: str):
    """An `ir.Module` (needed to attach host callbacks; plain text cannot carry them)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, stablehlo
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    with context:
        try:
            return ir.Module.parse(text)
        except Exception as e:
            raise CompileError(_explain_compile_error(e, text)) from None


class _WithHostCallbacks:
    """A loaded executable whose program calls back into Python. It holds the callbacks (XLA
    refers to them by index only), and each run waits until the program is done: what the
    callbacks print comes out during the call, in order with the caller's own output, and a
    callback's error is raised by the call (as the CallbackError it recorded)."""
    __slots__ = ("_loaded", "host_callbacks")

    def __init__(self, loaded, host_callbacks):
        self._loaded, self.host_callbacks = loaded, host_callbacks

    def execute_sharded(self, arguments, with_tokens=False):
        del _callback_errors[:]
        try:
            results = self._loaded.execute_sharded(arguments, with_tokens=True)
            results.consume_token().block_until_ready()
        except Exception:
            if _callback_errors:
                raise _callback_errors.pop()     # its __cause__: the callback's error
            raise
        return results

    def __getattr__(self, name):
        return getattr(self._loaded, name)


# MLIR reports positions as `-:LINE:COL` (text input) or `loc("-":LINE:COL)`.
_LOCATION = re.compile(r"-\"?:(\d+):(\d+)")


def _explain_compile_error(error: Exception, text: str) -> str:
    """XLA's message, plus the module line it points at (with a caret under the column)."""
    message = str(error).strip()
    found = _LOCATION.search(message)
    if not found:
        return f"XLA could not compile the module: {message}"
    line_no, col = int(found.group(1)), int(found.group(2))
    lines = text.splitlines()
    if not 0 < line_no <= len(lines):
        return f"XLA could not compile the module: {message}"
    shown = lines[line_no - 1]
    return (f"XLA could not compile the module: {message}\n"
            f"at line {line_no}, column {col} of the module:\n"
            f"  {shown}\n  {' ' * max(col - 1, 0)}^")


# ------------------------------------------------------------ persistent cache
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
    return loaded


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


def clear_caches() -> None:
    """Forget in-memory executables (the disk cache stays)."""
    _memory_cache.clear()


# ------------------------------------------------------------------ running
class Executable:
    """A compiled program, callable on Arrays; result handlers are built once.

    `device` is one device, or a sequence of N devices for a replicated program
    (compiled with `compile_module(text, devices)`). Then `out_avals` (and
    `in_avals`) are per-device types, and each argument and result is an Array
    stacked along a leading device axis of size N (or, with
    ``stack_outputs=False``, results are replicated Arrays holding shard 0's
    value: for programs whose results agree on every device).

    `donated`: per argument a bool (as `lower_module(donated=...)` takes), or the
    indices of the donated arguments. A donated argument is deleted by every call,
    also where XLA could not reuse its memory (no result of its type, or a NumPy
    view of it alive): one rule for users, as JAX's documentation states it.
    """

    def __init__(self, loaded, out_avals, device, name="", donated=(), *, in_avals=None,
                 arg_names=None, stack_outputs=True):
        self.devices = tuple(device) if isinstance(device, (list, tuple)) else (device,)
        self.device = self.devices[0]
        self.loaded, self.name = loaded, name
        self.out_avals = list(out_avals)
        self.in_avals = list(in_avals) if in_avals is not None else None
        self.arg_names = list(arg_names) if arg_names is not None else None
        self.donated = _donated_indices(donated)
        self._sharding = sharding_for(self.devices)
        self.handlers = [_result_handler(a, self._sharding) for a in self.out_avals]
        n = len(self.devices)
        self._wrap = _wrap if n == 1 else functools.partial(_wrap_multi, n=n,
                                                            stacked=stack_outputs)
        # Only the single-device, non-donating path skips the extra work in _finish.
        self._simple = n == 1 and not self.donated
        self._execute = loaded.execute_sharded         # bound once: it is on every call
        # plain: _execute + handlers + Array wrapping is the whole call (the compiled fast
        # path, xla/fastpath.py, runs only such executables)
        self.plain = self._simple and type(self) is Executable
        if self.plain:
            # The hot path of jit and eager dispatch: a closure over what it reads, in place
            # of the method (subclasses change handlers and wrapping, so they keep it).
            self.call_buffers = _simple_call(self._execute, self.handlers, self.out_avals,
                                             weakref.ref(self))

    @property
    def num_replicas(self) -> int:
        return len(self.devices)

    def call_buffers(self, bufs) -> list:
        """Run on jaxlib buffers; returns Arrays (asynchronously: they may not be ready).

        The fast path. A donating call should go through `call_arrays`, which also drops
        the donated Arrays' cached NumPy views (they would block the donation)."""
        if not self._simple and _in_flight:
            _release_finished()         # before launching, so their memory can be reused
        try:
            outs = self._execute(bufs).consume_with_handlers(self.handlers)
        except CallbackError:
            raise
        except Exception as e:
            raise self._execution_error(e, bufs) from None
        if self._simple:
            return list(map(_wrap, outs, self.out_avals))
        return self._finish(bufs, outs)

    def call_arrays(self, arrays) -> list:
        """Run on Arrays already on this executable's device(s)."""
        if config.jax_no_execution:       # (jit's fast path is off then: config._debug_values)
            check_may_execute(self.name)
        for i in self.donated:
            arrays[i]._npy = None       # our cached zero-copy view would block the donation
        return self.call_buffers([a._buf for a in arrays])

    def __call__(self, *args) -> list:
        """Run on any arguments (Arrays, NumPy data, Python scalars), moving them as needed."""
        if self.in_avals is not None and len(args) != len(self.in_avals):
            raise TypeError(f"{self._what()} takes {len(self.in_avals)} arguments; got "
                            f"{len(args)}")
        return self.call_arrays([self._to_argument(i, x) for i, x in enumerate(args)])

    def _finish(self, bufs, outs) -> list:
        for i in self.donated:
            if not bufs[i].is_deleted():
                # A NumPy view held by the user made XLA skip the donation silently. Delete
                # anyway, so a donated argument is invalid after every call, not just some;
                # the view stays valid (it holds its own reference to the memory).
                bufs[i].delete()
        if len(self.devices) > 1 and outs:
            _throttle(outs[0])
        return [self._wrap(b, a) for b, a in zip(outs, self.out_avals)]

    # ------------------------------------------------------------ arguments
    def _to_argument(self, i, x) -> Array:
        """Argument `i` as an Array on this executable's device(s), checked against in_avals."""
        if isinstance(x, Array) and x.is_deleted():
            raise self._deleted_error(i, x._buf)
        if len(self.devices) > 1:
            return self._to_sharded_argument(i, x)
        expected = self.in_avals[i] if self.in_avals is not None else None
        if isinstance(x, Array):
            if expected is not None:
                self._check_type(i, x.aval, expected)
            return x if type(x) is Array and x.device == self.device else \
                device_put(x, self.device)
        value, aval = _host_value(x)
        if expected is not None:
            self._check_type(i, aval, expected)
            value = value.astype(expected.dtype, copy=False)
            aval = aval.update(dtype=expected.dtype)
        return host_to_device(value, aval, self.device)

    def _to_sharded_argument(self, i, x) -> Array:
        """Argument `i` as an N-shard Array: shard k (on device k) is x[k]."""
        n = len(self.devices)
        expected = self.in_avals[i] if self.in_avals is not None else None
        if isinstance(x, MultiDeviceArray) and x.device_list == self.devices:
            if expected is not None:
                self._check_type(i, x._buf.aval, expected)
            return x
        slices, shard = self._slices(i, x, n, expected, " (one slice per device)")
        return assemble(slices, shard, self.devices, stacked=True)

    def _slices(self, i, x, n: int, expected, per: str) -> tuple:
        """(argument `i`'s n slices along its leading axis as host values, one slice's type),
        checked against `expected` (a slice's type, or None); `per` says what the n are for
        the error of another leading size."""
        value, aval = (x._value(), x.aval) if isinstance(x, Array) else _host_value(x)
        if not value.shape or value.shape[0] != n:
            raise ValueError(f"{self._arg_name(i)} of {self._what()} must have a leading axis "
                             f"of size {n}{per}; got shape {value.shape}")
        shard = ShapedArray(value.shape[1:], value.dtype, aval.weak_type)
        if expected is not None:
            self._check_type(i, shard, expected)
            value = value.astype(expected.dtype, copy=False)
            shard = shard.update(dtype=expected.dtype)
        return list(value), shard

    def _check_type(self, i, aval, expected) -> None:
        """Types must match: XLA checks only byte sizes, and would reinterpret the bytes.
        A weakly typed value (a Python scalar) takes the expected dtype, as in jit."""
        if aval.shape != expected.shape or (aval.dtype != expected.dtype and not aval.weak_type):
            n = len(self.devices)
            lead = f" per device (a leading axis of {n} is the device axis)" if n > 1 else ""
            raise TypeError(f"{self._arg_name(i)} of {self._what()} must be "
                            f"{expected.strip_weak_type().str_short()}{lead}; got "
                            f"{aval.strip_weak_type().str_short()}")

    def _arg_name(self, i) -> str:
        if self.arg_names is not None and i < len(self.arg_names):
            return f"Argument '{self.arg_names[i]}' (argument {i})"
        return f"Argument {i}"

    def _what(self) -> str:
        return self.name or "the computation"

    # ------------------------------------------------------------ errors
    def _raise_deleted(self, i, buf):
        raise self._deleted_error(i, buf)

    def _deleted_error(self, i, buf) -> DeletedArrayError:
        aval = buf.aval
        shape = aval.str_short() if hasattr(aval, "str_short") else aval
        return DeletedArrayError(
            f"{self._arg_name(i)} of {self._what()} is an Array that has been deleted (donated "
            f"to an earlier call, or .delete() was called); shape={shape}. Pass that call's "
            f"result instead, or do not donate the argument.")

    def _execution_error(self, error, bufs) -> Exception:
        for i, b in enumerate(bufs):
            if not isinstance(b, xc.ArrayImpl):
                return TypeError(f"{self._arg_name(i)} of {self._what()} is a "
                                 f"{type(b).__name__}, not a device buffer; call the "
                                 f"Executable itself (exe(*args)) to pass host values")
            if b.is_deleted():
                return self._deleted_error(i, b)
        seen: dict = {}
        for i, b in enumerate(bufs):
            j = seen.setdefault(id(b), i)
            if j != i and (i in self.donated or j in self.donated):
                return ValueError(
                    f"The same Array is passed to {self._what()} as arguments {j} and {i}, and "
                    f"one of them is donated: a donated buffer cannot also be read. Pass a "
                    f"copy (x.copy()) as one of them, or do not donate it.")
        n = len(self.devices)
        for i, b in enumerate(bufs):
            shards = len(b._sharding._devices)
            if shards != n:
                fix = ("gather it first with device_put(x, device)" if shards > 1 else
                       "shard it first (device_put_sharded, or call the executable with "
                       "host data)")
                return ValueError(
                    f"{self._arg_name(i)} of {self._what()} lives on {shards} device(s), but "
                    f"this program runs on {n}: {fix}.")
        if is_out_of_memory(error):
            return out_of_memory(f"run {self._what()}", error, released=False)
        return ExecutionError(f"XLA failed to run {self._what()}: {error}")

    # ------------------------------------------------------------ introspection
    def cost_analysis(self) -> dict | None:
        """XLA's estimate for the compiled program (a PJRT plugin's through the C API's
        PJRT_Executable_GetCostAnalysis); None where the backend answers UNIMPLEMENTED, as
        JAX's Compiled.cost_analysis."""
        try:
            return dict(self.loaded.cost_analysis())
        except _client.JaxRuntimeError as e:
            if str(e).startswith("UNIMPLEMENTED"):
                return None
            raise

    def optimized_hlo(self) -> str:
        return self.loaded.get_hlo_text()

    def memory_stats(self):
        return self.loaded.get_compiled_memory_stats()


# Replicated programs launched back to back without waiting deadlock XLA:CPU's collectives
# at ~60 in flight, and the process aborts 40 s later (docs/jaxlib.md §4; seen here too). So
# a replicated launch waits for the oldest one beyond _MAX_IN_FLIGHT, across executables.
_MAX_IN_FLIGHT = 8
_in_flight: collections.deque = collections.deque()


def _throttle(result) -> None:
    _in_flight.append(result)
    while len(_in_flight) > _MAX_IN_FLIGHT:
        try:
            oldest = _in_flight.popleft()
        except IndexError:                # another thread took it
            break
        if not oldest.is_deleted():
            oldest.block_until_ready()


def _release_finished() -> None:
    """Forget launches that are done: held here, their results' device memory could not be
    reused, which cost a blocking loop of an 8-device psum about 30 % per call."""
    try:
        while _in_flight and (_in_flight[0].is_deleted() or _in_flight[0].is_ready()):
            _in_flight.popleft()
    except IndexError:                    # another thread took it
        pass


def _donated_indices(donated) -> tuple:
    donated = list(donated)
    if all(type(d) is bool for d in donated):
        return tuple(i for i, d in enumerate(donated) if d)
    return tuple(sorted(int(i) for i in donated))


_new_array = Array.__new__


def _result_handler(aval, sharding):
    try:
        return xc.array_result_handler(aval, sharding, True, _skip_checks=True)
    except TypeError:               # jaxlib >= 0.11 dropped _skip_checks (it never checks)
        return xc.array_result_handler(aval, sharding, True)


def check_may_execute(name) -> None:
    """JAX's RuntimeError if jax_no_execution is set."""
    if config.jax_no_execution:
        raise RuntimeError(f"JAX tried to execute function {name}, but the no_execution config "
                           "option is set")


def _simple_call(execute, handlers, out_avals, executable_ref):
    """`Executable.call_buffers` of a single-device, non-donating program, with everything
    it reads bound in a closure (no attribute lookups, no branches on the hot path). The
    executable is held weakly, for its error messages: a strong reference would be a cycle."""
    if len(out_avals) == 1:             # most programs: no map over the results
        out_aval, = out_avals

        def call_buffers(bufs) -> list:
            try:
                out, = execute(bufs).consume_with_handlers(handlers)
            except CallbackError:
                raise
            except Exception as e:
                raise executable_ref()._execution_error(e, bufs) from None
            array = _new_array(Array)          # _wrap, written out: one call fewer
            array._buf, array.aval, array._npy = out, out_aval, None
            return [array]
        return call_buffers

    def call_buffers(bufs) -> list:
        try:
            outs = execute(bufs).consume_with_handlers(handlers)
        except CallbackError:
            raise
        except Exception as e:
            raise executable_ref()._execution_error(e, bufs) from None
        return list(map(_wrap, outs, out_avals))
    return call_buffers


def _wrap(buf, aval) -> Array:
    a = _new_array(Array)
    a._buf, a.aval, a._npy = buf, aval, None
    return a


def _wrap_multi(buf, aval, n, stacked) -> MultiDeviceArray:
    if stacked:
        aval = aval.update(shape=(n,) + aval.shape)
    return MultiDeviceArray(buf, aval, stacked)
