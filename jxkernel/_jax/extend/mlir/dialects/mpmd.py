"""jax.extend.mlir.dialects.mpmd: jaxlib's `jaxlib.mlir.dialects.mpmd`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.mpmd"))
del _star
