"""jax.extend.mlir.dialects.func: jaxlib's `jaxlib.mlir.dialects.func`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.func"))
del _star
