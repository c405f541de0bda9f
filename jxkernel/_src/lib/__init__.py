"""jxkernel._src.lib, as jax._src.lib for what JAX's guides import from it: `mlir.dialects.hlo`
(see jxkernel/_src/lib/mlir/dialects/hlo.py). jaxlib itself stays inside jxkernel/xla/."""
