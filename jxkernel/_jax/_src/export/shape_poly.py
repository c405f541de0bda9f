"""jxkernel._src.export.shape_poly, as jax._src.export.shape_poly: symbolic dimensions
(jxkernel/export/shape_poly.py) and JAX's name for the bounds of an expression.

    >>> a, b = symbolic_shape("a, b")
    >>> _bounds_decision(a - b, BoundsPrecision.BEST), _bounds_decision(2 * a + 1, BoundsPrecision.BEST)
    ((-inf, inf), (3, inf))

JAX's internal representation of an expression (`_DimTerm`, `_DimFactor`, `Comparator`,
`_ensure_poly` and an expression's `_size`) is not here: jxkernel's expressions are sums of
monomials of atoms of its own (jxkernel/export/shape_poly.py).
"""
import enum
from typing import Union

from ....export.shape_poly import (  # noqa: F401
    InconclusiveDimensionOperation,
    SymbolicScope,
    UnexpectedDimVar,
    _DimExpr,
    decision_bounds,
    constrained_bounds,
    is_symbolic_dim,
    symbolic_args_specs,
    symbolic_shape,
)

DimSize = Union["_DimExpr", int]


class BoundsPrecision(enum.Enum):
    """How exact the bounds must be, as JAX's (a larger value asks for more; a lower one
    lets the decision procedure stop once the sign is known)."""
    FOR_GEQ0_OR_LEQ0 = 0
    FOR_GEQ0_OR_LT0 = 1
    BEST = 2


def _bounds_decision(e: DimSize, prec: BoundsPrecision) -> tuple:
    """(lowest, highest) value that `e` can take, as far as its scope's constraints tell
    (`-inf`/`inf` where unbounded); an int's bounds are itself."""
    return decision_bounds(e, prec.value)
