"""jax.extend.mlir.dialects.arith: jaxlib's `jaxlib.mlir.dialects.arith`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.arith"))
del _star
