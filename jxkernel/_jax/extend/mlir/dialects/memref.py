"""jax.extend.mlir.dialects.memref: jaxlib's `jaxlib.mlir.dialects.memref`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.memref"))
del _star
