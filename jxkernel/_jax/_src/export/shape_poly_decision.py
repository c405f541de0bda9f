"""jxkernel._src.export.shape_poly_decision, as jax._src.export.shape_poly_decision: where
JAX's module holds its decision procedure for comparisons of symbolic dimensions (importing it
installs that procedure); jxkernel's is part of jxkernel/export/shape_poly.py, so this module
names its bounds only. JAX's elimination class (`_DecisionByElimination`) is not here.

    >>> from jxkernel._src.export.shape_poly import symbolic_shape
    >>> a, = symbolic_shape("a"); bounds_decision(a + 2, BoundsPrecision.BEST)
    (3, inf)
"""
from .shape_poly import (  # noqa: F401
    BoundsPrecision,
    DimSize,
    InconclusiveDimensionOperation,
    SymbolicScope,
    _DimExpr,
)
from .shape_poly import _bounds_decision as bounds_decision  # noqa: F401
