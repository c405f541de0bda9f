"""jxkernel.extend.mlir, as jax.extend.mlir: jaxlib's MLIR Python bindings (`ir`, `passmanager`,
`dialects.func`, `dialects.stablehlo`, ...), the very modules JAX re-exports, and the StableHLO
artifact functions. For programs that build MLIR themselves (autodidax); jxkernel's own
lowering writes StableHLO text. See jxkernel/xla/mlir_bindings.py.

    >>> from jxkernel.extend.mlir import ir
    >>> with ir.Context():
    ...     str(ir.F32Type.get())
    'f32'
"""
from ....xla.mlir_bindings import portable_artifact_functions as _functions

globals().update(_functions())
del _functions
