"""Backends (PJRT clients) and their devices.

    >>> import jxkernel
    >>> jxkernel.devices()
    [CpuDevice(id=0)]

CPU always works where jaxlib imports. GPU (CUDA) and TPU come from PJRT plugins, found on
disk without importing `jax` (jax's own plugin packages import jax in their
`__init__`, so we load their shared library directly, as docs/jaxlib.md §9
describes). Clients start lazily, on first use. The NumPy backend (platform "numpy",
numpy_device.py, numpy_backend.py) runs jaxprs with NumPy alone: chosen by name
(JAX_PLATFORMS=numpy), and the default where jaxlib cannot be imported (Pyodide).
"""
from __future__ import annotations

import _imp
import contextlib
import enum
import gc
import glob
import importlib.abc
import importlib.util
import os
import sys
import threading
import warnings

# jaxlib reads this once, when its C++ extension loads: set it before importing jaxlib.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

try:
    from jaxlib import xla_client as xc  # noqa: E402
    from jaxlib import lapack as _jaxlib_lapack  # noqa: E402  (1 ms; its routines load later)
    JAXLIB_ERROR = None
except ImportError as e:              # Pyodide, or a venv without jaxlib: the NumPy backend runs
    xc, _jaxlib_lapack, JAXLIB_ERROR = None, None, e

_lapack_registered = False


def register_lapack_targets() -> None:
    """Register jaxlib's LAPACK custom-call targets with XLA (once per process, 1 ms): at the
    CPU backend's start, where JAX 0.10.2 has them (xla/lapack.py loads their routines)."""
    global _lapack_registered
    with _lock:
        if _lapack_registered:
            return
        for platform, targets in _jaxlib_lapack.registrations().items():
            for name, fn, api_version in targets:
                xc.register_custom_call_target(name, fn, platform=platform,
                                               api_version=api_version)
        # XLA may split their batch across devices (the calls say how many leading
        # dimensions are one: lapack.batch_partitioning), as JAX registers them
        for name in getattr(_jaxlib_lapack, "batch_partitionable_targets", tuple)():
            xc.register_custom_call_as_batch_partitionable(name)
        _lapack_registered = True

def internal_device_put_info() -> dict:
    """jaxlib's counts of its device puts, by kind ("device_put_with_sharding", ...; JAX's
    jtu.count_internal_device_puts reads them); empty without jaxlib."""
    return {} if xc is None else dict(xc._xla.get_internal_device_put_info())


# jaxlib's list of devices, as JAX's `xla_client.DeviceList` (colocated_python's specializations
# hold one); without jaxlib, the devices' tuple
DeviceList = xc.DeviceList if xc is not None else tuple


class _CopySemantics(enum.Enum):
    """jaxlib's ArrayCopySemantics where jaxlib cannot be imported: the same three names."""
    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2


# how device_put treats its input (the param of device_put_p): JAX's, jaxlib's enum
ArrayCopySemantics = xc.ArrayCopySemantics if xc is not None else _CopySemantics
# jaxlib's IFRT program constructors (`jax.extend.ifrt_programs.ifrt_programs`); None without jaxlib
ifrt_programs = getattr(xc._xla, "ifrt_programs", None) if xc is not None else None

from ..core.config import config  # noqa: E402
from ..core.source_info import is_jxkernel_file  # noqa: E402
from . import numpy_device  # noqa: E402

# what jxkernel.devices() returns (PJRT's device class; without jaxlib, the NumPy backend's)
Device = xc.Device if xc is not None else numpy_device.NumpyDevice

if xc is not None:
    JaxRuntimeError = xc._xla.JaxRuntimeError    # what a failing execution raises (jax.errors')

# jax_logging_level's level for jaxlib's C++ log too, as JAX 0.10.2 sets it (absl's minimum: 0
# INFO, 1 WARNING, 2 ERROR, 3 FATAL): at INFO or DEBUG `jax.distributed.initialize` shows its
# coordination service's lines ("Initializing CoordinationService"); None and "NOTSET" leave
# it as it was (TF_CPP_MIN_LOG_LEVEL's, above)
_CPP_LOG_LEVELS = {"CRITICAL": 3, "FATAL": 3, "ERROR": 2, "WARN": 1, "WARNING": 1, "INFO": 0,
                   "DEBUG": 0}


def _set_cpp_log_level(old, new) -> None:
    if new in (None, "NOTSET") or xc is None:
        return
    from jaxlib import utils
    utils.absl_set_min_log_level(_CPP_LOG_LEVELS[new])


config.watch("jax_logging_level", _set_cpp_log_level)
_set_cpp_log_level(None, config.jax_logging_level)      # (JAX_LOGGING_LEVEL in the environment)


def approx_top_k_reduction_output_size(size: int, rank: int, k: int, recall_target: float,
                                       size_override: int) -> int:
    """XLA's ApproxTopKReductionOutputSize (jaxlib's): how many values approx_top_k without
    aggregate_to_topk gives along its axis, as JAX's abstract evaluation reads it (without
    jaxlib, NotImplementedError)."""
    if xc is None:
        raise NotImplementedError("approx_top_k with aggregate_to_topk=False needs jaxlib "
                                  "(XLA's reduction output size)")
    return xc._xla.approx_top_k_reduction_output_size(size, rank, k, recall_target, False,
                                                      size_override)[0]


def _collect_jaxlib_garbage(phase, info, collect=getattr(getattr(xc, "_xla", None),
                                                         "collect_garbage", None)) -> None:
    """jaxlib queues Python objects released off the interpreter's thread (one per
    execution: its results' bookkeeping) and frees them only when asked; JAX asks at every
    garbage collection (jax/_src/lib, JAX issue #14882). Without it each call of a compiled
    program kept about 50 bytes for good. `collect` is bound when the module loads: a
    collection while the interpreter shuts down finds this module's globals (`xc`) already
    None, which was an "Exception ignored in" warning at a kernel's or worker's exit."""
    if phase == "start":
        collect()


if xc is not None and hasattr(xc._xla, "collect_garbage"):
    gc.callbacks.append(_collect_jaxlib_garbage)
else:
    class JaxRuntimeError(RuntimeError):
        """What a failing execution raises (jaxlib's class, where jaxlib imports)."""

_lock = threading.RLock()
_backends: dict[str, Backend] = {}
_failures: dict[str, Exception] = {}

# What to install for an accelerator (install_advice.py); its names stay readable here, where
# `python -m jxkernel` and the tests of the extras read them
from .install_advice import (  # noqa: E402,F401
    EXTRAS, install_advice, install_line, machine_accelerator)


def _jaxlib_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return xc._version if isinstance(getattr(xc, "_version", None), str) else "?"


def is_optimized_build() -> bool:
    """Whether jaxlib was built with optimizations (a debug build is not; without jaxlib, the
    NumPy backend's NumPy is taken as one)."""
    return True if xc is None else bool(xc._xla.is_optimized_build())


def sanitizers() -> dict:
    """Whether jaxlib was built with ThreadSanitizer ("tsan") or any sanitizer ("any"): JAX's
    tests skip what such builds cannot run (`jtu.is_tsan()`); without jaxlib, neither."""
    if xc is None:
        return {"tsan": False, "any": False}
    return {"tsan": bool(xc._xla.is_tsan()), "any": bool(xc._xla.is_sanitized())}


def _cuda_plugin_mismatch(path: str) -> str | None:
    """Why the CUDA plugin at `path` cannot serve this jaxlib (its packages are of another
    release), or None. JAX leaves such a plugin unused too ("not compatible with the installed
    jaxlib version"): a runtime whose JAX is older than jxkernel's jaxlib keeps its old plugin."""
    from importlib import metadata
    cuda = "cuda13" if os.sep + "xla_cuda13" + os.sep in path else "cuda12"
    jaxlib = _jaxlib_version()
    for dist in (f"jax-{cuda}-pjrt", f"jax-{cuda}-plugin"):
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        if version != jaxlib:
            return (f"{dist} {version} is installed, but jaxlib is {jaxlib}: a plugin serves "
                    f"only its own jaxlib release")
    return None


_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "cpu": "cpu", "tpu": "tpu",
            "numpy": "numpy"}
_PREFERENCE = ("tpu", "gpu", "cpu")


class _KeepRealJaxOut(importlib.abc.MetaPathFinder):
    """Keeps a real JAX installed beside jxkernel out of jxkernel's process.

    Some of jaxlib's methods import `jax` for JAX's own hooks (an ArrayImpl's host copy, its
    `_arrays`, `unsafe_buffer_pointer`, ... try `import jax`, then `jax._src.sharding_impls`).
    Where PyPI's Flax or Optax installed the real JAX, that would import all of it under
    jxkernel, and its import sets jaxlib's global state (the x64 flag, pytree registrations).
    jxkernel itself never imports `jax`, so an import of it whose importing frame is in
    jxkernel's own files comes from jaxlib: it fails as where JAX is not installed, which
    jaxlib expects. A user's own `import jax` (a frame of theirs) is left alone, and so is
    anything once a jax is imported (the alias's, or a real one beside jxkernel).
    """
    def find_spec(self, name, path=None, target=None):
        if (name != "jax" and not name.startswith("jax.")) or "jax" in sys.modules:
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        if _BLOCK_ALL or (frame is not None and is_jxkernel_file(frame.f_code.co_filename)):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


_BLOCK_ALL = False
sys.meta_path.insert(0, _KeepRealJaxOut())     # before the path finder that would find jax


@contextlib.contextmanager
def real_jax_unimportable():
    """Within it, `import jax` fails from any frame, as if JAX were not installed (unless a jax
    is imported already): for code outside jxkernel that calls jaxlib itself, as tests do."""
    global _BLOCK_ALL
    before, _BLOCK_ALL = _BLOCK_ALL, True
    try:
        yield
    finally:
        _BLOCK_ALL = before


def shard_buffers(buf) -> list:
    """`buf._arrays`: a multi-device jaxlib array's one-device arrays, one per shard.

    jaxlib gives each new shard its sharding through JAX's
    `jax._src.sharding_impls.make_single_device_sharding` if `import` finds it, else its own
    SingleDeviceSharding, and tries that import afresh for every shard (and, for a shard of
    an array split over a mesh, `jax.core` too): where JAX is not imported, failing imports
    through every finder for each shard (~0.2 ms to read an 8-device pmap output, twice JAX's
    whole read). `jax` as None in sys.modules makes every such import fail at once, before
    any finder, so jaxlib takes its own class as before. The import lock is held meanwhile:
    no other thread can start an import (of a real JAX) that would meet the None.

        >>> shard_buffers(x._buf)            # doctest: +SKIP
        [<jaxlib._jax.ArrayImpl ...>, ...]
    """
    if "jax._src" in sys.modules:      # a real JAX (or the alias's jax._src): no failing import
        return buf._arrays
    _imp.acquire_lock()
    try:
        if "jax" in sys.modules:       # a jax imported (or a None of another thread's)
            return buf._arrays
        sys.modules["jax"] = None
        try:
            return buf._arrays
        finally:
            del sys.modules["jax"]
    finally:
        _imp.release_lock()


class Backend:
    """A started PJRT client and what we know about it."""

    def __init__(self, platform: str, client):
        self.platform = platform          # "cpu", "gpu" or "tpu"
        self.client = client
        self.devices = list(client.local_devices())
        self.global_devices = list(client.devices())   # all processes' (xla/distributed.py)

    @property
    def platform_version(self) -> str:
        return self.client.platform_version

    def __repr__(self):
        return f"Backend({self.platform}, {len(self.devices)} devices)"


def canonical_platform(name: str) -> str:
    key = name.lower()
    if key not in _ALIASES:
        raise ValueError(f"Unknown backend {name!r}; known backends are cpu, gpu (cuda), tpu "
                         f"and numpy")
    return _ALIASES[key]


# ----------------------------------------------------------------------------- CPU
# Filled by xla/distributed.py's connect: a backend spanning processes.
_cpu_client_options: dict = {}
_plugin_distributed: dict = {}


def _make_cpu() -> Backend:
    n = config.jax_num_cpu_devices       # (JAX's -1 and 0, or None: XLA_FLAGS's count)
    client = xc.make_cpu_client(asynchronous=True, num_devices=int(n) if n and n > 0 else None,
                                **_cpu_client_options)
    register_lapack_targets()           # jaxlib's LAPACK targets exist from here, as in JAX
    return Backend("cpu", client)


def _refuse_late_cpu_count(old, new):
    # (the NumPy backend simulates as many devices as the CPU's: numpy_device.device_count)
    for platform in ("cpu", "numpy"):
        if platform in _backends and new != old:
            # JAX's words alone; the late-device-count card says how many devices run and
            # to restart the kernel
            raise RuntimeError(
                "jax_num_cpu_devices config should be updated before backends are "
                "initialized i.e. before any JAX operation is executed. You should initialize "
                "this config immediately after `import jax`.")


config.watch("jax_num_cpu_devices", _refuse_late_cpu_count)


def _set_thread_guard(old, new):
    if xc is None:                  # the NumPy backend: one process, no guard to set
        return
    # jaxlib keeps the guard: a multi-process program launched from another thread than the
    # one that set it raises there (one process: no effect, as in JAX)
    xc._xla.guard_lib.update_thread_guard_global_state(bool(new))


config.watch("jax_thread_guard", _set_thread_guard)


def _set_gc_guard(old, new):
    if xc is None:                  # the NumPy backend: its arrays are NumPy's, no guard
        return
    # jaxlib's arrays (each Array's buffers) check it when the cycle collector frees them
    guard = xc._xla.guard_lib
    guard.global_state().garbage_collect_array = None if new is None else \
        getattr(guard.GarbageCollectionGuardLevel, new.upper())


config.watch("jax_array_garbage_collection_guard", _set_gc_guard)


# ----------------------------------------------------------------------------- GPU
def _cuda_plugin_library() -> str | None:
    """The path of jax-cuda1x-pjrt's PJRT plugin, without importing its package."""
    spec = importlib.util.find_spec("jax_plugins")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for name in ("xla_cuda13", "xla_cuda12"):
            path = os.path.join(folder, name, "xla_cuda_plugin.so")
            if os.path.exists(path):
                return path
    return None


def _preload_nvidia_libraries() -> None:
    """Load the CUDA libraries the `nvidia-*` wheels carry, as jax's plugin does."""
    import ctypes
    spec = importlib.util.find_spec("nvidia")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for lib in sorted(glob.glob(os.path.join(folder, "*", "lib", "lib*.so*"))):
            try:
                ctypes.cdll.LoadLibrary(lib)
            except OSError:
                pass   # a library for a feature we do not use; the plugin reports what it needs


def _make_gpu() -> Backend:
    path = _cuda_plugin_library()
    if path is None:
        raise RuntimeError(f"No GPU backend: the CUDA PJRT plugin is not installed. "
                           f"To use GPUs: {install_advice('gpu')}")
    mismatch = _cuda_plugin_mismatch(path)
    if mismatch is not None:
        raise RuntimeError(f"No GPU backend: {mismatch}. To use GPUs: {install_advice('gpu')}")
    if not xc.pjrt_plugin_loaded("cuda"):
        _preload_nvidia_libraries()
        xc.load_pjrt_plugin_dynamically("cuda", path)
    if not xc.pjrt_plugin_initialized("cuda"):
        xc.initialize_pjrt_plugin("cuda")
    options = xc.generate_pjrt_gpu_plugin_options()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        options["visible_devices"] = [int(d) for d in visible.split(",") if d.strip()]
    return Backend("gpu", _make_plugin_client("cuda", options))


def _make_plugin_client(name: str, options: dict):
    """A PJRT plugin's client; after distributed.initialize, one spanning the processes."""
    if not _plugin_distributed:
        return xc.make_c_api_client(name, options)
    options = dict(options, node_id=_plugin_distributed["node_id"],
                   num_nodes=_plugin_distributed["num_nodes"])
    if name == "cuda" and "visible_devices" in _plugin_distributed:   # local_device_ids
        options["visible_devices"] = _plugin_distributed["visible_devices"]
    return xc.make_c_api_client(name, options, _plugin_distributed["client"])


# ----------------------------------------------------------------------------- TPU
def _make_tpu() -> Backend:
    path = os.environ.get("TPU_LIBRARY_PATH")
    if path is None and importlib.util.find_spec("libtpu") is not None:
        import libtpu
        path = libtpu.get_library_path()
    if path is None:
        raise RuntimeError(f"No TPU backend: libtpu is not installed. To use TPUs: "
                           f"{install_advice('tpu')}")
    if not xc.pjrt_plugin_loaded("tpu"):
        xc.load_pjrt_plugin_dynamically("tpu", path)
    if not xc.pjrt_plugin_initialized("tpu"):
        xc.initialize_pjrt_plugin("tpu")
    return Backend("tpu", _make_plugin_client("tpu", {}))


def _make_numpy() -> Backend:
    # as many devices as XLA's CPU would simulate here (numpy_device.device_count says why)
    numpy_device.CLIENT.start(numpy_device.device_count(config.jax_num_cpu_devices))
    return Backend("numpy", numpy_device.CLIENT)


def xla_unavailable() -> str | None:
    """Why XLA's backends cannot start here (jaxlib does not import), or None where it does.

        >>> xla_unavailable() is None          # jaxlib imports here; in the browser (Pyodide):
        True

    "XLA's backends (cpu, gpu, tpu) do not run in the browser: jaxlib has no build ..."
    """
    if xc is not None:
        return None
    if sys.platform == "emscripten":    # read at call time: a test can stand in for Pyodide
        return ("XLA's backends (cpu, gpu, tpu) do not run in the browser: jaxlib has no build "
                "for Pyodide (WebAssembly). Here jxkernel runs on its NumPy backend ('numpy'): "
                "the same jit, grad, vmap and views, each operation run by NumPy (no XLA fusion)")
    return (f"jaxlib cannot be imported ({JAXLIB_ERROR}), so XLA's backends (cpu, gpu, tpu) do "
            f"not run here; the 'numpy' backend does (JAX_PLATFORMS=numpy)")


def _jaxlib_requirement() -> str:
    """The jaxlib jxkernel's metadata pins (pyproject.toml's `jaxlib==X.Y.Z`), or "jaxlib"."""
    from importlib import metadata
    try:
        requirements = metadata.requires("jxkernel") or []
    except metadata.PackageNotFoundError:     # a checkout on sys.path, never installed
        requirements = []
    for requirement in requirements:
        name = requirement.split(";")[0].strip()
        if name.startswith("jaxlib"):
            return name
    return "jaxlib"


def how_to_get_xla() -> str:
    """What to do for XLA's backends where the NumPy backend runs, in one sentence: what
    works here (`%jxbackend cpu` does not while JAX_PLATFORMS leaves cpu out).

        >>> how_to_get_xla()          # jaxlib installed, JAX_PLATFORMS unset
        '%jxbackend cpu in a notebook, JAX_PLATFORMS=cpu for a program'

    With JAX_PLATFORMS=numpy: "set JAX_PLATFORMS=cpu (or unset it) and restart, or
    jax.config.update('jax_platforms', 'cpu')".
    """
    if xc is None:
        if sys.platform == "emscripten":
            return ("jaxlib has no build for the browser (Pyodide): run the notebooks in a Python "
                    "with jxkernel[notebook] installed (docs/teaching.md)")
        return f'pip install "{_jaxlib_requirement()}" into this Python and restart'
    if config.jax_platforms and "cpu" not in _allowed_platforms():
        return ("set JAX_PLATFORMS=cpu (or unset it) and restart, or "
                "jax.config.update('jax_platforms', 'cpu')")
    return "%jxbackend cpu in a notebook, JAX_PLATFORMS=cpu for a program"


def _needs_jaxlib(make):
    """`make`, refusing clearly where jaxlib cannot be imported (the NumPy backend remains)."""
    def made() -> Backend:
        why = xla_unavailable()
        if why is not None:
            raise RuntimeError(why)
        return make()
    return made


_FACTORIES = {"cpu": _needs_jaxlib(_make_cpu), "gpu": _needs_jaxlib(_make_gpu),
              "tpu": _needs_jaxlib(_make_tpu), "numpy": _make_numpy}


def _available(platform: str) -> bool:
    """Cheap check, without starting anything: could this platform exist here?"""
    if platform in ("cpu", "numpy"):
        return True
    if platform == "gpu":
        return _cuda_plugin_library() is not None
    return (bool(os.environ.get("TPU_LIBRARY_PATH"))
            or importlib.util.find_spec("libtpu") is not None)


# JAX's names of the backends (its `backends()` keys, its lowering and export platforms): the
# GPU backend is CUDA's, the only GPU plugin jxkernel loads
JAX_NAMES = {"cpu": "cpu", "gpu": "cuda", "tpu": "tpu", "numpy": "numpy"}


def lowering_platform(name: str) -> str:
    """The platform lowering rules know a JAX platform name by: its PJRT devices' ("gpu" for
    "cuda"; the inverse of JAX_NAMES).

        >>> lowering_platform("cuda"), lowering_platform("cpu")
        ('gpu', 'cpu')
    """
    return "gpu" if name == "cuda" else name


def jax_platform(name: str) -> str:
    """JAX's lowering platform for a backend name: "cuda" for "gpu" (the CUDA backend, which
    must start here: JAX resolves "gpu" by the backends present), others as they are.

        >>> jax_platform("cpu"), jax_platform("cuda"), jax_platform("rocm")
        ('cpu', 'cuda', 'rocm')
    """
    key = name.lower()
    if key != "gpu":
        return key
    try:
        get_backend("gpu")
    except RuntimeError:
        raise RuntimeError(_no_instance_message("gpu")) from None
    return "cuda"


def _present() -> list[str]:
    """JAX's names of the backends JAX would have started: those of jax_platforms that start
    here, or (without the option) those started so far."""
    if not config.jax_platforms:
        default_backend()                 # JAX starts its backends before it answers
        return [JAX_NAMES[p] for p in _backends]
    present = []
    for platform in _allowed_platforms():
        try:
            get_backend(platform)
        except RuntimeError:
            continue
        present.append(JAX_NAMES[platform])
    return present


def _started_names() -> list[str]:
    """JAX's `list(backends())` as its errors print it: by JAX's names, highest priority first
    (a TPU, the GPU, then the CPU, which JAX starts beside any other): ['cuda', 'cpu'] on a GPU
    machine where jxkernel may not have started its CPU yet."""
    order = ("tpu", "gpu", "cpu", "numpy")
    return [JAX_NAMES[p] for p in order
            if p in _backends or p == "cpu" and p not in _failures]


def _no_instance_message(asked: str) -> str:
    return (f"Unknown backend: '{asked}' requested, but no platforms that are instances of "
            f"{asked} are present. Platforms present are: " + ",".join(_present()))


def _refuse_unlisted(asked: str, platform: str) -> None:
    """With jax_platforms (JAX_PLATFORMS) set, a backend it does not list does not start:
    JAX's error, word for word ('gpu' is an alias there; 'cuda', 'tpu'... are backends)."""
    if not config.jax_platforms or platform in _allowed_platforms():
        return
    if asked.lower() == "gpu":
        raise RuntimeError(_no_instance_message("gpu"))
    raise RuntimeError(f"Unknown backend {asked.lower()}. Available backends are {_present()}")


def get_backend(platform: str | None = None) -> Backend:
    """The started backend for `platform` ("cpu", "gpu", "tpu"; None: the default)."""
    asked = platform
    if platform is None:
        platform = default_backend()
    elif platform not in _ALIASES:    # a name no backend has (JAX's are lower case): its error
        default_backend()
        raise RuntimeError(f"Unknown backend {platform}. Available backends are "
                           f"{_started_names()}")
    else:
        platform = canonical_platform(platform)
    backend = _backends.get(platform)
    if backend is not None:
        return backend
    if asked is not None:                 # one not started: is it one JAX_PLATFORMS allows?
        _refuse_unlisted(asked, platform)
    with _lock:
        if platform not in _backends:
            # JAX's words ("failed to initialize", the backends there are), which libraries
            # match (Chex's device assertions), with what to install
            if platform in _failures:
                raise RuntimeError(f"Backend {platform!r} failed to initialize: "
                                   f"{_failures[platform]}. Available backends are "
                                   f"{_started_names()}")
            try:
                _backends[platform] = _FACTORIES[platform]()
            except Exception as e:
                _failures[platform] = e
                # (its words carry the cause's: a chain would show the learner our frames)
                raise RuntimeError(f"Backend {platform!r} failed to initialize: {e}. Available "
                                   f"backends are {_started_names()}") from None
        return _backends[platform]


def _allowed_platforms() -> list[str]:
    if config.jax_platforms:
        return [canonical_platform(p) for p in str(config.jax_platforms).split(",") if p.strip()]
    return list(_PREFERENCE) if xc is not None else ["numpy"]


def _forget_default(old, new):
    # jax.config.update('jax_platforms', 'numpy') after a first program: later ones go there
    if new != old:
        _default.clear()


config.watch("jax_platforms", _forget_default)


def default_backend() -> str:
    """The platform used when none is named: the best one that starts (tpu > gpu > cpu;
    numpy where jaxlib cannot be imported)."""
    if config.jax_platform_name:
        return canonical_platform(config.jax_platform_name)
    cached = _default.get("platform")
    if cached is not None:
        return cached
    errors = []
    for platform in _allowed_platforms():
        if platform not in ("cpu", "numpy") and not _available(platform):
            errors.append(f"{platform} is not installed; to use it: {install_advice(platform)}")
            continue
        try:
            get_backend(platform)
        except RuntimeError as e:
            errors.append(str(e))
            continue
        _default["platform"] = platform
        return platform
    raise RuntimeError(f"No backend could start (jax_platforms={config.jax_platforms!r}): "
                       + "; ".join(errors))


_default: dict = {}


def started_platforms() -> list[str]:
    """The platforms whose backends have started, starting none.

        >>> set(started_platforms()) <= {"cpu", "gpu", "tpu", "numpy"}
        True
    """
    return list(_backends)


def prospective_cpu() -> tuple[str, int] | None:
    """(platform, device count) of the CPU or NumPy backend that default_backend() would start,
    without starting it (the count from jax_num_cpu_devices or XLA_FLAGS, as it will start);
    None where the default is another platform (a GPU's, which leaves the CPU's count free)
    or one has started. What the notebook's status shows before the user's first cell: a CPU
    started there would fix its count before the cell that sets it (parallel.md's
    `jax.config.update('jax_num_cpu_devices', 8)`, shard_map.md's XLA_FLAGS)."""
    if _backends:
        return None
    if config.jax_platform_name:
        platform = canonical_platform(config.jax_platform_name)
    else:
        platform = next((p for p in _allowed_platforms() if _available(p)), None)
    if platform not in ("cpu", "numpy"):
        return None
    return platform, numpy_device.device_count(config.jax_num_cpu_devices)


def backends() -> dict[str, Backend]:
    """The backends started so far (the default one is started if none is)."""
    default_backend()
    return dict(_backends)


def live_buffers(backend: Backend | None = None) -> list:
    """The live jaxlib buffers of `backend`, or of every backend started so far (None: this
    starts none, as `backends()` would)."""
    chosen = list(_backends.values()) if backend is None else [backend]
    return [buf for b in chosen for buf in b.client.live_arrays()]


def devices(backend: str | None = None) -> list:
    """All devices of `backend` (default: the default backend), of every process, like
    jax.devices()."""
    return list(get_backend(backend).global_devices)


def local_devices(process_index: int | None = None, backend: str | None = None) -> list:
    """The devices of this process (or of process `process_index`)."""
    if process_index is None:
        return list(get_backend(backend).devices)
    if not 0 <= process_index < process_count(backend):      # JAX's words
        raise ValueError(f"Unknown process_index {process_index}")
    return [d for d in get_backend(backend).global_devices if d.process_index == process_index]


def device_count(backend: str | None = None) -> int:
    return len(get_backend(backend).global_devices)


def local_device_count(backend: str | None = None) -> int:
    return len(get_backend(backend).devices)


def process_index(backend: str | None = None) -> int:
    """This process's index in a multi-process run (jxkernel.distributed), else 0."""
    return get_backend(backend).client.process_index()


def process_count(backend: str | None = None) -> int:
    return max(d.process_index for d in get_backend(backend).global_devices) + 1


def process_indices(backend: str | None = None) -> list[int]:
    """Every process's index, in order: ``list(range(process_count()))``."""
    return list(range(process_count(backend)))


def _renamed(old: str, new):
    """JAX's older name `old` for `new` (a "host" was a process): works, with a UserWarning."""
    def alias(backend: str | None = None):
        warnings.warn(f"jax.{old} has been renamed to jax.{new.__name__}. This alias will "
                      f"eventually be removed; please update your code.", stacklevel=2)
        return new(backend)
    alias.__name__ = old
    alias.__doc__ = f"Deprecated name of `{new.__name__}`."
    return alias


host_id = _renamed("host_id", process_index)
host_count = _renamed("host_count", process_count)
host_ids = _renamed("host_ids", process_indices)


def platform_of(device) -> str:
    """'cpu', 'gpu', 'tpu' or 'numpy' for a device."""
    return canonical_platform(device.platform)


def backend_of(device) -> Backend:
    return get_backend(platform_of(device))


def default_device():
    """Where computations run when no device is named: `jax_default_device` if set, else the
    default backend's first device."""
    chosen = config.jax_default_device
    if chosen is None:
        return get_backend().devices[0]
    return resolve_device(chosen)


def resolve_device(spec):
    """A device from a Device, or a string 'platform' or 'platform:index' (e.g. 'cpu:1')."""
    if not isinstance(spec, str):
        return spec
    platform, _, index = spec.partition(":")
    found = get_backend(platform).devices
    i = int(index) if index else 0
    if not 0 <= i < len(found):
        raise ValueError(f"Device {spec!r} does not exist: {platform} has {len(found)} devices")
    return found[i]


def device_name(device) -> str:
    """'cpu:1': a device as `resolve_device`, `jax_default_device`, %jxbackend and the
    notebook's backend selector spell it."""
    return f"{platform_of(device)}:{device.id}"
