"""jax.extend.mlir.dialects.chlo: jaxlib's `jaxlib.mlir.dialects.chlo`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.chlo"))
del _star
