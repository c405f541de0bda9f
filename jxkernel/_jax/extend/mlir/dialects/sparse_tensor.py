"""jax.extend.mlir.dialects.sparse_tensor: jaxlib's `jaxlib.mlir.dialects.sparse_tensor`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.sparse_tensor"))
del _star
