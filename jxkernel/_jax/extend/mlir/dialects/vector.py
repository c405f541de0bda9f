"""jax.extend.mlir.dialects.vector: jaxlib's `jaxlib.mlir.dialects.vector`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.vector"))
del _star
