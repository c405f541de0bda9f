"""Linear algebra on CUDA GPUs: jaxlib's cuSOLVER kernels (potrf, getrf, geqrf, orgqr, syevd,
gesvd, gesvdj, geev, ...) and its CUDA linalg and hybrid kernels as XLA custom calls, emitted
as JAX emits them on a CUDA GPU, so results match JAX's there.

The kernels live in the CUDA plugin's extension modules (`jax_cuda13_plugin._solver`,
`_linalg`, `_hybrid`), which jaxlib's `gpu_solver` and `gpu_linalg` find. XLA learns about
them through the plugin's own C API (its `cuda_plugin_extension` registers a handler for the
platform "CUDA"), so `ensure_registered()` can only work once the GPU backend has started; it
runs the first time a lowering for the GPU emits one of these calls:

    custom_call(ctx, "cusolver_getrf_ffi", [x], [lu_aval, pivots_aval, info_aval],
                aliases={0: 0})

Attributes are keywords with Python values typed as JAX types them: a bool (`lower=True`),
a `np.uint8` (`algorithm=np.uint8(0)`) or a string (`magma="auto"`).
"""
from __future__ import annotations

import ctypes
import functools
import threading

from . import ffi, lapack
from . import client
from .client import xc

_lock = threading.Lock()
_registered = False
_CAPSULE_NAME = b"pjrt_c_api"      # what jaxlib names the PJRT_Api capsule it hands around


def _plugin_module(name: str):
    """`name` ("cuda_plugin_extension", "_versions", ...) of the installed CUDA plugin, or
    None when there is none."""
    from jaxlib import plugin_support
    return plugin_support.import_from_plugin("cuda", name)


def _pjrt_c_api(library_path: str):
    """The loaded CUDA plugin's PJRT_Api as the capsule its extension module expects. The
    client loaded the library already (dlopen gives back the same handle), so this asks the
    library itself rather than loading the plugin a second time, which XLA refuses."""
    lib = ctypes.CDLL(library_path)
    lib.GetPjrtApi.restype = ctypes.c_void_p
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new_capsule(lib.GetPjrtApi(), _CAPSULE_NAME, None)


def ensure_registered() -> bool:
    """Register the CUDA plugin's solver and linalg kernels, and its own FFI handlers (the
    Python host callback), with XLA (once per process).
    Returns False, registering nothing, while no CUDA plugin is loaded (a module lowered for
    the GPU on a machine without one can still be printed, not run)."""
    global _registered
    if _registered:
        return True
    with _lock:
        if _registered:
            return True
        path = client._cuda_plugin_library()
        if path is None or not xc.pjrt_plugin_loaded("cuda"):
            return False
        extension = _plugin_module("cuda_plugin_extension")
        if extension is None:
            raise RuntimeError("The CUDA PJRT plugin is loaded but its kernels package "
                               "(jax-cuda12-plugin / jax-cuda13-plugin, matching jaxlib's "
                               "version) is not installed, so linear algebra cannot run on "
                               "the GPU; install it or run on the CPU")
        api = _pjrt_c_api(path)
        xc.register_custom_call_handler(
            "CUDA", functools.partial(extension.register_custom_call_target, api))
        # the plugin's own FFI types and handlers, as JAX's CUDA plugin registers them: the
        # Python host callback (xla_ffi_python_gpu_callback) among them
        xc.register_custom_type_handler(
            "CUDA", functools.partial(extension.register_custom_type, api))
        for name, value in extension.ffi_types().items():
            xc.register_custom_type(name, value, platform="CUDA")
        for name, value in extension.ffi_handlers().items():
            xc.register_custom_call_target(name, value, platform="CUDA", api_version=1)
        from jaxlib import gpu_linalg, gpu_solver, gpu_sparse
        # (gpu_sparse: cusparse_gtsv2_ffi, tridiagonal_solve's kernel on the GPU)
        for module in (gpu_solver, gpu_linalg, gpu_sparse):
            for name, fn, api_version in module.registrations().get("CUDA", []):
                xc.register_custom_call_target(name, fn, platform="CUDA",
                                               api_version=api_version)
            # XLA may split their batch across devices (lapack.batch_partitioning marks each
            # call's batch), as JAX registers them
            for name in module.batch_partitionable_targets():
                xc.register_custom_call_as_batch_partitionable(name)
        _registered = True
        return True


def initialize_hybrid_kernels() -> None:
    """The hybrid kernels (geqp3, eig: LAPACK on the host, or MAGMA) look up LAPACK once."""
    if ensure_registered():
        from jaxlib import gpu_solver
        gpu_solver.initialize_hybrid_kernels()


def cuda_versions():
    """The CUDA plugin's `_versions` module (`cusolver_get_version()`, `cuda_runtime_get_version()`,
    ...), or None without a CUDA plugin: JAX's `jax._src.lib.cuda_versions`."""
    return _plugin_module("_versions")


def cusolver_version() -> int | None:
    """cuSOLVER's version (e.g. 11701 for 11.7.1), or None without a CUDA plugin."""
    versions = cuda_versions()
    return None if versions is None else versions.cusolver_get_version()


def registrations() -> dict:
    """The GPU solver kernels jaxlib's plugins hold, per platform ("CUDA", "ROCM"), as
    (name, capsule, api_version) rows: jaxlib's `gpu_solver.registrations()`; both lists are
    empty without a GPU plugin."""
    from jaxlib import gpu_solver
    return gpu_solver.registrations()


GPU_PLATFORMS = ("gpu", "rocm")      # the lowering platforms of CUDA's and ROCm's GPUs


def on_gpu(ctx) -> bool:
    """Whether `ctx` lowers for a GPU, CUDA's ("gpu") or ROCm's, whose kernels JAX names alike
    ("cusolver_potrf_ffi", "hipsolver_potrf_ffi")."""
    return ctx.platform in GPU_PLATFORMS


def target_name(ctx, target: str) -> str:
    """The kernel `target`, named with CUDA's prefix ("cusolver_getrf_ffi",
    "cu_lu_pivots_to_permutation"), as the platform of `ctx` names it: ROCm's have "hip" in
    place of "cu" (JAX's `_platform_prefix_map`: "hipsolver_getrf_ffi")."""
    assert target.startswith("cu"), target
    return "hip" + target[2:] if ctx.platform == "rocm" else target


def custom_call(ctx, target: str, operands, result_avals, *, aliases=None, operand_avals=None,
                column_major: bool = True, num_non_batch_dims: int = 2, **attributes) -> list:
    """Emit the CUDA kernel `target` (e.g. "cusolver_potrf_ffi") as a typed-FFI custom call,
    the matrices column-major (row-major for all when not `column_major`); `aliases` maps an
    operand index to the result that overwrites it. Lowered for ROCm, the call names ROCm's
    kernel, as JAX's ("hipsolver_potrf_ffi"): a module for ROCm can be written, not run."""
    if not on_gpu(ctx):
        raise NotImplementedError(f"{target}: jxkernel runs linear algebra with LAPACK on the "
                                  f"CPU and cuSOLVER on CUDA GPUs, not on {ctx.platform!r}")
    if ctx.platform == "gpu":
        ensure_registered()
    config = ffi.dictionary({k: ffi.attribute(v) for k, v in attributes.items()})
    return lapack.ffi_call(ctx, target_name(ctx, target), operands, result_avals,
                           backend_config=config, aliases=aliases, operand_avals=operand_avals,
                           column_major=column_major, num_non_batch_dims=num_non_batch_dims)
