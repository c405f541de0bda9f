"""JAX's `sparse.util`: the helpers its sparse formats share, by JAX's names, each imported
from its home here: the warning and error classes and `SparseInfo` (`_base.py`), `nfold_vmap`
and `broadcasting_vmap` (`batch_vmap.py`), the stored-element counts `fromdense` uses
(`bcoo.py`), the CSR/COO index helpers; the checked shape of a dot_general is its own.

    >>> _count_stored_elements(jnp.array([[1., 0.], [2., 3.]]), n_batch=1)
    Array(2, dtype=int32)
    >>> nfold_vmap(lambda x: x.sum(), 2)(jnp.ones((2, 3, 4))).shape
    (2, 3)
"""
from __future__ import annotations

import numpy as np

from ...core.avals import ShapedArray
from ...lax.dot import _dot_general_shape
from ._base import (CuSparseEfficiencyWarning, SparseEfficiencyError,  # noqa: F401
                    SparseEfficiencyWarning, SparseInfo)
from .batch_vmap import broadcasting_vmap, nfold_vmap  # noqa: F401
from .bcoo import _count_stored_elements, _count_stored_elements_per_batch  # noqa: F401
from .bcsr import _csr_to_coo  # noqa: F401  (JAX's home of it; jxkernel's is bcsr.py)
from .coo import _coo_extract  # noqa: F401
from .csr import _csr_extract  # noqa: F401


def _dot_general_validated_shape(lhs_shape, rhs_shape, dimension_numbers) -> tuple:
    """The shape of `dot_general` of operands of these shapes; TypeError, as lax's, where
    the dimension numbers do not fit them."""
    return _dot_general_shape(ShapedArray(tuple(lhs_shape), np.float32),
                              ShapedArray(tuple(rhs_shape), np.float32),
                              tuple(tuple(tuple(d) for d in p) for p in dimension_numbers))
