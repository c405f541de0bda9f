"""jax.extend.mlir.ir: jaxlib's `jaxlib.mlir.ir` (jxkernel/xla/mlir_bindings.py)."""
from ....xla.mlir_bindings import star as _star

globals().update(_star("ir"))
del _star
