"""Compile StableHLO text with PJRT, cache executables, and run them.

Two caches: in memory (module text + devices -> executable) and on disk
(serialized executables, so a restarted notebook kernel skips XLA's compile:
60 ms to seconds, against ~2 ms to load). A corrupt or stale disk entry is
ignored and replaced, never fatal.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import time

import numpy as np

from ..config import config
from . import client as _client
from .array import Array, DeletedArrayError, sharding_for
from .client import xc

_jaxlib_version = getattr(__import__("jaxlib.version", fromlist=["__version__"]), "__version__", "?")


class CompileError(RuntimeError):
    """XLA refused a module; the message shows the offending line of it."""


class ExecutionError(RuntimeError):
    pass


# ------------------------------------------------------------------ compiling
class CompileStats:
    __slots__ = ("seconds", "source")           # source: "compiled", "memory" or "disk"

    def __init__(self, seconds, source):
        self.seconds, self.source = seconds, source


_memory_cache: dict = {}
_memory_lock = threading.Lock()


def _compile_options(num_replicas: int, devices) -> tuple:
    options = xc.CompileOptions()
    if num_replicas > 1:
        options.num_replicas = num_replicas
        options.num_partitions = 1
        options.device_assignment = xc.DeviceAssignment.create(
            np.array([[d.id] for d in devices], dtype=np.int32))
    return options, f"replicas={num_replicas}"


def compile_module(text: str, devices, num_replicas: int = 1, host_callbacks=()) -> tuple:
    """(LoadedExecutable, CompileStats) for module `text` on `devices` (one per replica)."""
    devices = tuple(devices)
    key = (text, tuple(d.id for d in devices), devices[0].platform, num_replicas)
    if not host_callbacks:
        with _memory_lock:
            hit = _memory_cache.get(key)
        if hit is not None:
            return hit, CompileStats(0.0, "memory")
    backend = _client.backend_of(devices[0])
    options, options_key = _compile_options(num_replicas, devices)
    device_list = xc.DeviceList(devices)
    start = time.perf_counter()
    disk_key = None if host_callbacks else _disk_key(text, options_key, backend, devices)
    loaded = _disk_load(disk_key, backend, device_list) if disk_key else None
    source = "disk"
    if loaded is None:
        source = "compiled"
        try:
            if host_callbacks:
                loaded = backend.client.compile_and_load(
                    _parse_ir(text), device_list, options, host_callbacks=list(host_callbacks))
            else:
                loaded = backend.client.compile_and_load(text, device_list, options)
        except Exception as e:
            raise CompileError(_explain_compile_error(e, text)) from None
        elapsed = time.perf_counter() - start
        if disk_key and elapsed >= config.jax_persistent_cache_min_compile_time_secs:
            _disk_store(disk_key, loaded)
    stats = CompileStats(time.perf_counter() - start, source)
    if not host_callbacks:
        with _memory_lock:
            _memory_cache[key] = loaded
    return loaded, stats


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
        return ir.Module.parse(text)


_LOCATION = re.compile(r"-:(\d+):(\d+)")


def _explain_compile_error(error: Exception, text: str) -> str:
    message = str(error)
    found = _LOCATION.search(message)
    if not found:
        return f"XLA could not compile the module: {message}"
    line_no, col = int(found.group(1)), int(found.group(2))
    lines = text.splitlines()
    shown = lines[line_no - 1] if 0 < line_no <= len(lines) else "?"
    return (f"XLA could not compile the module: {message}\n"
            f"at line {line_no}, column {col} of the module:\n  {shown}\n"
            f"  {' ' * max(col - 1, 0)}^")


# ------------------------------------------------------------ persistent cache
def cache_dir() -> str | None:
    """The folder of the on-disk executable cache, or None when it is disabled."""
    if not config.jax_enable_compilation_cache:
        return None
    if config.jax_compilation_cache_dir:
        return str(config.jax_compilation_cache_dir)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jxkernel", "xla")


def _disk_key(text, options_key, backend, devices) -> str | None:
    folder = cache_dir()
    if folder is None:
        return None
    h = hashlib.sha256()
    for part in (text, options_key, backend.platform, backend.platform_version, _jaxlib_version,
                 devices[0].device_kind, ",".join(str(d.id) for d in devices)):
        h.update(str(part).encode())
        h.update(b"\0")
    return os.path.join(folder, h.hexdigest() + ".xla")


def _disk_load(path, backend, device_list):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    try:
        return backend.client.deserialize_executable(blob, device_list, xc.CompileOptions())
    except Exception:
        _remove_quietly(path)       # corrupt or from an incompatible build: recompile and replace
        return None


def _disk_store(path, loaded) -> None:
    try:
        blob = loaded.serialize()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)       # atomic: readers never see half a file
    except Exception:
        pass                        # a read-only or full disk must not break compiling


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def clear_caches() -> None:
    """Forget in-memory executables (the disk cache stays)."""
    with _memory_lock:
        _memory_cache.clear()


# ------------------------------------------------------------------ running
class Executable:
    """A compiled program on one device, callable on Arrays; result handlers are built once."""

    def __init__(self, loaded, out_avals, device, name="", donated=()):
        self.loaded, self.out_avals, self.device, self.name = loaded, list(out_avals), device, name
        sharding = sharding_for((device,))
        self.handlers = [xc.array_result_handler(a, sharding, True, _skip_checks=True)
                         for a in out_avals]
        self.donated = tuple(donated)

    def call_buffers(self, bufs) -> list:
        """Run on jaxlib buffers; returns Arrays (asynchronously: they may not be ready)."""
        try:
            outs = self.loaded.execute_sharded(bufs).consume_with_handlers(self.handlers)
        except Exception as e:
            raise _execution_error(e, bufs, self.name) from None
        return [_wrap(b, a) for b, a in zip(outs, self.out_avals)]

    def cost_analysis(self) -> dict:
        return dict(self.loaded.cost_analysis())

    def optimized_hlo(self) -> str:
        return self.loaded.get_hlo_text()

    def memory_stats(self):
        return self.loaded.get_compiled_memory_stats()


def _wrap(buf, aval) -> Array:
    a = Array.__new__(Array)
    a._buf, a.aval, a._npy = buf, aval, None
    return a


def _execution_error(error, bufs, name) -> Exception:
    for i, b in enumerate(bufs):
        if b.is_deleted():
            return DeletedArrayError(
                f"Argument {i} of {name or 'the computation'} is an Array that has been deleted "
                f"(donated to an earlier jitted call, or .delete() was called); shape="
                f"{b.aval.str_short() if hasattr(b.aval, 'str_short') else b.aval}. Pass the "
                f"result of that call instead.")
    return ExecutionError(f"XLA failed to run {name or 'the computation'}: {error}")
