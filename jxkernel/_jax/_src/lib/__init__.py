"""jxkernel._src.lib, as jax._src.lib for what JAX's guides and tests import from it:
`mlir.dialects.hlo` (see jxkernel/_jax/_src/lib/mlir/dialects/hlo.py), `gpu_solver`
(gpu_solver.py), `cuda_versions` (the CUDA plugin's `_versions` module, None without one, as
JAX's), `xla_client`, jaxlib's own module (autodidax runs its MLIR on the client with
`xla_client.batched_device_put`), jaxlib's extension module `_jax`, its profiler module
`_profiler` (jxkernel/xla/profiler.py's), and jaxlib's versions
(`jaxlib_extension_version`, which JAX's tests compare to decide what the runtime supports;
`version_str`, and `version`, the same as a tuple of ints, which JAX's tests compare with
`(0, 10)`), jaxlib's `lapack` module, and its C++ jit's modules `jax_jit` (its argument
parsing, `parse_arguments`) and `pytree` (jxkernel's jit does not use them: its fast path is
its own, core/_fastpath.c). jaxlib itself stays inside
jxkernel/xla/ (xla/mlir_bindings.py) and loads on first access.

    >>> from jxkernel._src import lib
    >>> lib.jaxlib_extension_version >= 467
    True
    >>> lib.version >= (0, 10)
    True
"""
from ....xla import gpu_solver as _gpu_solver

_VERSIONS = {"jaxlib_extension_version": "extension_version", "version_str": "jaxlib_version"}


def __getattr__(name):
    if name == "cuda_versions":     # the CUDA plugin's version module, None without one
        return _gpu_solver.cuda_versions()
    if name == "version":           # '0.10.2' -> (0, 10, 2), as jaxlib's _version_as_tuple
        value = globals()[name] = tuple(int(p) for p in __getattr__("version_str").split(".")[:3]
                                        if p.isdigit())
        return value
    if name not in ("xla_client", "_jax", "_profiler", "lapack", "jax_jit", "pytree") and \
            name not in _VERSIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ....xla import mlir_bindings   # jaxlib: loaded on first access only
    if name == "xla_client":
        return mlir_bindings.xla_client()
    if name == "_jax":                  # jaxlib's extension module (its pprof converters)
        return mlir_bindings.extension()
    if name in ("jax_jit", "pytree"):   # jaxlib's modules of its C++ jit's argument parsing
        return getattr(mlir_bindings.extension(), name)
    if name == "_profiler":             # jaxlib's profiler module (the plugins' profilers)
        return mlir_bindings.profiler_module()
    if name == "lapack":                # jaxlib's LAPACK module (JAX's ffi_test loads it)
        return mlir_bindings.lapack()
    value = globals()[name] = getattr(mlir_bindings, _VERSIONS[name])()
    return value
