"""jax.extend.mlir.dialects.sdy: jaxlib's `jaxlib.mlir.dialects.sdy`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.sdy"))
del _star
