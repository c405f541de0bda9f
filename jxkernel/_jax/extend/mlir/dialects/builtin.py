"""jax.extend.mlir.dialects.builtin: jaxlib's `jaxlib.mlir.dialects.builtin`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.builtin"))
del _star
