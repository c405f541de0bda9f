"""jxkernel._src.literals, as jax._src.literals: host values that carry their JAX type
(core/literals.py: TypedInt, TypedFloat, TypedComplex, TypedNdArray).

    >>> TypedFloat(2.0, np.float32)
    TypedFloat(2.0, dtype=float32)
"""
import numpy as np  # noqa: F401  (the example's)

from ...core.literals import (TypedComplex, TypedFloat, TypedInt, TypedNdArray,  # noqa: F401
                              typed_scalar_types)
