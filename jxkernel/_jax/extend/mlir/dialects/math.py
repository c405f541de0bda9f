"""jax.extend.mlir.dialects.math: jaxlib's `jaxlib.mlir.dialects.math`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.math"))
del _star
