"""jxkernel._src.lib, as jax._src.lib for what JAX's guides import from it: `mlir.dialects.hlo`
(see jxkernel/_jax/_src/lib/mlir/dialects/hlo.py) and `xla_client`, jaxlib's own module (autodidax
runs its MLIR on the client with `xla_client.batched_device_put`), loaded on first access.
jaxlib itself stays inside jxkernel/xla/ (xla/mlir_bindings.py)."""


def __getattr__(name):
    if name == "xla_client":
        from ....xla.mlir_bindings import xla_client   # jaxlib: loaded on first access only
        return xla_client()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
