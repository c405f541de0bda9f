"""jax.extend.mlir.dialects.stablehlo: jaxlib's `jaxlib.mlir.dialects.stablehlo`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.stablehlo"))
del _star
