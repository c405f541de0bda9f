"""jax.extend.mlir.dialects.scf: jaxlib's `jaxlib.mlir.dialects.scf`
(jxkernel/xla/mlir_bindings.py)."""
from .....xla.mlir_bindings import star as _star

globals().update(_star("dialects.scf"))
del _star
