"""Compile StableHLO text with PJRT: the one call into XLA's compiler, the cache key both
caches share, and the errors of compiling and of the programs' host callbacks.

    >>> text = jax.jit(jnp.sin).lower(np.ones(3, np.float32)).as_text()
    >>> loaded, phases = compile_module(text, jax.devices()[:1])   # phases.cache: "compiled"
    >>> compile_module(text, jax.devices()[:1])[1].cache           # the same text again
    'memory'

Two caches: in memory (module text + devices -> executable; memory.py) and on disk
(serialized executables, so a restarted notebook kernel skips XLA's compile: 60 ms to
seconds, against ~2 ms to load; disk_cache.py). Running what it compiled: executable.py.
"""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import time

import numpy as np

from ..core.config import config, make_user_context
from ..core.lazy_names import lazy_names
from ..core.monitoring import test_event
from . import client as _client
from .client import xc
from .disk_cache import (_cache_line, _disk_load, _disk_path, _disk_store, _held_back,
                         _host_fingerprint, _log_lines, _log_persistent, _module_and_key,
                         _persistent_level, _persistent_logger, min_compile_time,
                         user_configured)
from .memory import _check_mappings, _memory_cache, is_out_of_memory, out_of_memory, release_memory
# this module's public names before the split, where callers and JAX's paths import them
from .disk_cache import cache_dir  # noqa: F401
from .memory import (MEMORY_CACHE_SIZE, OutOfMemoryError, clear_caches,  # noqa: F401
                     set_memory_cache_size, trim_heap)

# After .client, which sets jaxlib's log level before jaxlib loads. Part of disk-cache keys.
if xc is not None:
    from jaxlib.version import __version__ as _jaxlib_version  # noqa: E402


class CompileError(_client.JaxRuntimeError):
    """XLA refused a module; the message shows the offending line of it. A JaxRuntimeError
    (a RuntimeError), the class JAX raises for a module XLA cannot compile."""


class ExecutionError(RuntimeError):
    """XLA could not run a compiled program with the arguments it was given."""


class CallbackError(_client.JaxRuntimeError):
    """A Python host callback (debug.print, debug.callback, pure_callback) failed while its
    program ran; the callback's own exception is the `__cause__`. A JaxRuntimeError, the class
    JAX raises for a failed callback (libraries catch it: Equinox's runtime errors).
    `staged_at`: (file, line) of the learner's line that staged the callback, where known."""
    staged_at = None


# The host function records its error here: XLA passes on only the text, and may call it on
# another thread than the caller's.
_callback_errors: list = []


def record_callback_error(error: CallbackError) -> None:
    _callback_errors.append(error)


# The custom-call target of Python callbacks. Running one in a program compiled without its
# host callbacks crashes the process (docs/jaxlib.md §7), so compile_module refuses that.
# The custom calls that run Python functions on the host (the CPU's, the CUDA plugin's)
HOST_CALLBACK_TARGETS = ("xla_ffi_python_cpu_callback", "xla_ffi_python_gpu_callback",
                         # (called once per device on its blocks, in a partitioned program)
                         "xla_ffi_partitioned_python_cpu_callback",
                         "xla_ffi_partitioned_python_gpu_callback")
# the custom call through which XLA's partitioner tells a Python callback, while it compiles,
# the HloSharding it chose for a value (jax.debug.inspect_array_sharding's; jaxlib registers
# its partitioner), and custom_partitioning's, partitioned by Python callbacks: such programs
# call back only when compiled, and name their callbacks by address, so they are never cached
INSPECT_SHARDING_TARGET = "InspectSharding"
CUSTOM_PARTITIONING_TARGET = "CustomSPMDPartitioning"
_COMPILE_TIME_CALLBACKS = (INSPECT_SHARDING_TARGET, CUSTOM_PARTITIONING_TARGET)


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
    # the persistent cache's log lines of this compile, (level, message, args), where they
    # were held back (`cache_lines_held`) for the compile's record to log (`log_cache_lines`)
    cache_lines: tuple = ()

    @property
    def total_s(self) -> float:
        return self.trace_s + self.lower_s + self.compile_s

    def log_cache_lines(self) -> None:
        """Log the persistent cache's lines held back for this compile (see cache_lines_held)."""
        _log_lines(self.cache_lines)


# XLA options every compile starts from, beneath those a jit names. Empty for users; the test
# suite puts XLA CPU's loop emitters here, about a third less CPU per compile
# (tests/conftest.py says why and which tests keep XLA's default code). A user context, so that
# its value joins jit's cache keys: a jitted function keeps one program per setting.
_base_options = make_user_context(())
_base_options.name = "jxkernel's base XLA options (set_base_compiler_options)"


def set_base_compiler_options(options: dict) -> dict:
    """Make `options` ({name: value} of XLA's DebugOptions) the ones every later compile
    starts from, part of each cache key (jit's too); returns the previous ones. Eager
    operations compiled before keep their programs (xla/dispatch's caches do not look).

    >>> previous = set_base_compiler_options({}); set_base_compiler_options(previous)
    {}
    """
    previous = dict(_base_options.value)
    _base_options.set_global(tuple(sorted(options.items())))
    return previous


def _with_base(compiler_options) -> dict | None:
    """A compile's options: the base ones, under those it names."""
    base = _base_options.value
    return {**dict(base), **compiler_options} if compiler_options else dict(base) or None


# compiler_options set on XLA's ExecutableBuildOptions rather than as debug options (JAX's
# list: the effort levels, e.g. {"optimization_level": jax.config.EffortLevel.O1.value})
_BUILD_OPTION_NAMES = ("exec_time_optimization_effort", "memory_fitting_effort",
                       "optimization_level", "memory_fitting_level")


def _compile_options(devices, propagate_outputs=None, compiler_options=None):
    """CompileOptions for a program on one device, or (`propagate_outputs` given: per result,
    whether XLA picks its sharding) one program partitioned over `devices` by Shardy.
    `compiler_options` ({name: value}) sets XLA's debug options by name, as JAX's
    `Lowered.compile(compiler_options=...)` does; XLA rejects an unknown name."""
    options = xc.CompileOptions()
    if compiler_options:
        overrides = dict(compiler_options)
        # JAX's: these are fields of the build options, not XLA debug options
        build = options.executable_build_options
        for name in _BUILD_OPTION_NAMES:
            if name in overrides:
                setattr(build, name, overrides.pop(name))
        options.env_option_overrides = list(overrides.items())
    ids = [d.id for d in devices]
    if propagate_outputs is None:
        if len(ids) != 1:
            raise ValueError(f"A program over {len(ids)} devices is partitioned over them: "
                             f"pass propagate_outputs (per result, whether XLA picks its "
                             f"sharding), as xla/sharded.py does")
        options.num_replicas, options.num_partitions = 1, 1
        # Always name the device: left out, the assignment defaults to device 0 even when the
        # program is compiled for (and called with buffers on) another device.
        assignment = [ids]
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



def create_compile_options(computation, tuple_args, allow_prop_to_inputs,
                           allow_prop_to_outputs, backend, np_dev, compiler_options):
    """JAX's `pxla.create_compile_options`: the CompileOptions of `computation` partitioned
    over the devices `np_dev` (one replica, a partition per device), with XLA's sharding
    propagation to parameters and results as the two lists say and `compiler_options` as
    XLA's debug options by name. `computation` and `backend` do not change them here (JAX's
    use them only for logging and an FDO profile, which jxkernel has not)."""
    del computation, backend
    options = dict(compiler_options or {})
    options.pop("fdo_profile", None)
    devices = list(np.asarray(np_dev, dtype=object).reshape(-1))
    compile_options = xc.CompileOptions()
    if options:
        compile_options.env_option_overrides = list(options.items())
    compile_options.num_replicas, compile_options.num_partitions = 1, len(devices)
    compile_options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id for d in devices]], dtype=np.int32))
    compile_options.parameter_is_tupled_arguments = bool(tuple_args)
    build = compile_options.executable_build_options
    build.allow_spmd_sharding_propagation_to_parameters = list(allow_prop_to_inputs)
    build.allow_spmd_sharding_propagation_to_output = list(allow_prop_to_outputs)
    return compile_options

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
    compiler_options = _with_base(compiler_options)
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


def compile_module(text: str, devices, host_callbacks=(), propagate_outputs=None,
                   compiler_options=None) -> tuple:
    """(LoadedExecutable, Phases) for module `text` on `devices` (one, or with
    `propagate_outputs` the devices it is partitioned over, see `_compile_options`); the Phases
    hold the compile time and where the executable came from. `compiler_options`: XLA's
    options by name ({"xla_cpu_enable_fast_math": False}), part of the cache key.

    >>> text = jax.jit(jnp.cos).lower(np.ones(3, np.float32)).as_text()
    >>> loaded, phases = compile_module(text, jax.devices()[:1])   # phases.cache: "compiled"
    >>> compile_module(text, jax.devices()[:1])[1].cache           # the same text again
    'memory'
    """
    devices = tuple(devices)
    compiler_options = _with_base(compiler_options)
    # Both caches follow `jax_enable_compilation_cache`: off, every module compiles afresh
    # (what benchmarks of compile time need). Host callbacks are Python objects bound at
    # compile time, as are inspect_array_sharding's and custom_partitioning's: never cached.
    key = cache_key(text, devices, propagate_outputs, compiler_options) \
        if not host_callbacks and config.jax_enable_compilation_cache and \
        not any(target in text for target in _COMPILE_TIME_CALLBACKS) else None
    if key is not None:
        hit = _memory_cache.get(key)
        # one compiled while jaxlib's tracebacks were off has none to show: with them on, the
        # program compiles anew (JAX compiles each lowering afresh), so that
        # `runtime_executable().traceback` names where it was compiled, as JAX's does
        if hit is not None and (not _tracebacks_on() or _has_traceback(hit)):
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
    path = None if key is None or not _serializable(text, devices) else _disk_path(key)
    loaded = _disk_load(path, backend, device_list, options) if path else None
    source = "disk"
    lines = []                      # the persistent cache's log lines, as JAX 0.10.2 logs them
    if loaded is not None:          # JAX's line, WARNING with jax_log_compiles on
        _cache_line(lines, logging.WARNING if config.jax_log_compiles and user_configured()
                    else logging.DEBUG, "Persistent compilation cache hit for '%s' with key %r",
                    *_module_and_key(text, key))
    # JAX looks a program with host callbacks up too (its key has their addresses), misses,
    # and says why it keeps it not (compiler._cache_write); jxkernel keeps such programs in
    # neither cache, and tells it in JAX's lines
    called_back = bool(host_callbacks) and config.jax_enable_compilation_cache and \
        _persistent_logger.isEnabledFor(_persistent_level())
    if loaded is None:
        source = "compiled"
        if config.jax_enable_compilation_cache:     # JAX's event: the cache (enabled, with
            # a folder or not) did not spare this compile
            test_event("compile_after_persistent_compilation_miss")
        if path or called_back:
            _log_persistent(lines, "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r",
                            text, key or cache_key(text, devices, propagate_outputs,
                                                   compiler_options))
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
        if called_back:
            _log_persistent(lines, "Not writing persistent cache entry for '%s' because it "
                            "uses host callbacks (e.g. from jax.debug.print or breakpoint)",
                            text, None)
        elif path and elapsed >= min_compile_time():
            _log_persistent(lines, "Writing %s to persistent compilation cache with key %r",
                            text, key)
            _disk_store(path, loaded)
        elif path:
            minimum = min_compile_time()
            _log_persistent(lines, f"Not writing persistent cache entry for '%s' because it "
                            f"took < {minimum:.2f} seconds to compile ({elapsed:.2f}s)", text,
                            None)
    if host_callbacks:
        loaded = _WithHostCallbacks(loaded, tuple(host_callbacks))
    held = _held_back()
    phases = Phases(compile_s=time.perf_counter() - start, cache=source,
                    cache_lines=tuple(lines) if held else ())
    if not held:
        _log_lines(lines)
    if key is not None:
        _memory_cache[key] = loaded
    return loaded, phases


def _tracebacks_on() -> bool:
    """Whether jaxlib records tracebacks (`_jax.set_tracebacks_enabled`, on by default)."""
    return xc._xla.tracebacks_enabled()


def _has_traceback(loaded) -> bool:
    return getattr(loaded, "traceback", True) is not None


def _serializable(text: str, devices) -> bool:
    """Whether jaxlib can serialize the executable of `text` for the disk cache: 0.10.2's
    crashes (a segmentation fault) on a program over several devices that takes a token
    (a set_mesh's eager after_all; JAX's persistent cache would too, off by default there)."""
    if len(devices) == 1:
        return True
    start = text.find("@main(")
    return "!stablehlo.token" not in text[start:text.find("->", start)]


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
            if _in_a_callback(e) or _no_ffi_handler(e):
                raise           # jaxlib's error as it is, as JAX raises it (no module line)
            if not is_out_of_memory(e):
                raise CompileError(_explain_compile_error(e, str(module))) from None
            if attempt:
                raise out_of_memory("compile a program", e) from None
            release_memory()


# how jaxlib words a Python callback's failure while XLA compiles: custom_partitioning's
# partition, inspect_array_sharding's callback
_CALLBACK_FAILURES = ("INTERNAL: custom_partitioner: ",
                      "INTERNAL: Error calling inspect_sharding: ")


def _in_a_callback(error: Exception) -> bool:
    """Whether XLA's compile failed in a Python callback it called (jaxlib's JaxRuntimeError
    with the callback's traceback), which JAX raises as it is."""
    return isinstance(error, _client.JaxRuntimeError) and \
        str(error).startswith(_CALLBACK_FAILURES)


def _no_ffi_handler(error: Exception) -> bool:
    """Whether XLA found no handler for a custom call's FFI target (jax.ffi.ffi_call of a name
    never registered): JAX 0.10.2 raises jaxlib's JaxRuntimeError as it is, "NOT_FOUND: No FFI
    handler registered for NAME on a platform Host (canonical host)"."""
    return isinstance(error, _client.JaxRuntimeError) and \
        str(error).startswith("NOT_FOUND: No FFI handler registered for ")


def _parse_ir(text: str):
    """An `ir.Module` (needed to attach host callbacks; plain text cannot carry them)."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, sdy, stablehlo
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    sdy.register_dialect(context)            # a module partitioned over a mesh (Shardy's)
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


# Running moved to executable.py, which imports this module (for its errors), so this one
# cannot import it at load: its names load on first use
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    name: ("jxkernel.xla.executable", name) for name in ("Executable", "check_may_execute")})
