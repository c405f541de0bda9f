"""jxkernel._src.lib, as jax._src.lib for what JAX's guides import from it: `mlir.dialects.hlo`
(see jxkernel/_jax/_src/lib/mlir/dialects/hlo.py), `gpu_solver` (gpu_solver.py), `cuda_versions`
(the CUDA plugin's `_versions` module, None without one, as JAX's) and `xla_client`, jaxlib's own module (autodidax
runs its MLIR on the client with `xla_client.batched_device_put`), loaded on first access.
jaxlib itself stays inside jxkernel/xla/ (xla/mlir_bindings.py)."""
from ....xla import gpu_solver as _gpu_solver


def __getattr__(name):
    if name == "cuda_versions":     # the CUDA plugin's version module, None without one
        return _gpu_solver.cuda_versions()
    if name == "xla_client":
        from ....xla.mlir_bindings import xla_client   # jaxlib: loaded on first access only
        return xla_client()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
