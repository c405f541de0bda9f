"""jax.extend.mlir.passmanager: jaxlib's `jaxlib.mlir.passmanager`
(jxkernel/xla/mlir_bindings.py)."""
from ....xla.mlir_bindings import star as _star

globals().update(_star("passmanager"))
del _star
