"""JAX's `sparse.util`: the helpers its sparse formats share, by JAX's names: the warning
and error classes and `SparseInfo` (from `_base.py`), `nfold_vmap` and `broadcasting_vmap`
(vmap over leading batch axes, a size-1 axis shared by the whole batch), the stored-element
counts `fromdense` uses, the CSR/COO index helpers and the checked shape of a dot_general.

    >>> _count_stored_elements(jnp.array([[1., 0.], [2., 3.]]), n_batch=1)
    Array(2, dtype=int32)
    >>> nfold_vmap(lambda x: x.sum(), 2)(jnp.ones((2, 3, 4))).shape
    (2, 3)
"""
from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...lax.dot import _dot_general_shape
from ...transforms.api_util import flatten_axes
from ...transforms.batching import vmap
from ...tree_util import tree_flatten, tree_unflatten
from ._base import (CuSparseEfficiencyWarning, SparseEfficiencyError,  # noqa: F401
                    SparseEfficiencyWarning, SparseInfo)
from .bcsr import _csr_to_coo  # noqa: F401  (JAX's home of it; jxkernel's is bcsr.py)
from .coo import _coo_extract  # noqa: F401
from .csr import _csr_extract  # noqa: F401


def nfold_vmap(fun, N, *, broadcasted=True, in_axes=0):
    """`fun` vmapped `N` times over `in_axes` (each time the next axis); `broadcasted`: an
    argument whose mapped axis has size 1 is shared across the batch (`broadcasting_vmap`)."""
    mapper = broadcasting_vmap if broadcasted else vmap
    for _ in range(N):
        fun = mapper(fun, in_axes=in_axes)
    return fun


def broadcasting_vmap(fun, in_axes=0, out_axes=0):
    """vmap, where an argument whose mapped axis has size 1 is not mapped but shared by every
    element of the batch (the others must agree on the size, else ValueError).

    >>> broadcasting_vmap(jnp.add)(jnp.ones((1, 2)), jnp.zeros((3, 2))).shape
    (3, 2)
    """
    def batched_fun(*args):
        leaves, tree = tree_flatten(args)
        axes = flatten_axes("vmap in_axes", tree, in_axes, kws=False)
        size = max(x.shape[i] for x, i in zip(leaves, axes) if i is not None)
        if size > 1:
            if any(i is not None and x.shape[i] not in (1, size) for x, i in zip(leaves, axes)):
                raise ValueError("broadcasting_vmap: mismatched input shapes")
            leaves, axes = zip(*((x, None) if i is None else
                                 (lax.squeeze(x, (i,)), None) if x.shape[i] == 1 else (x, i)
                                 for x, i in zip(leaves, axes)))
        return vmap(fun, in_axes=tree_unflatten(tree, axes), out_axes=out_axes)(
            *tree_unflatten(tree, leaves))
    batched_fun.__wrapped__ = fun
    batched_fun.__name__ = getattr(fun, "__name__", "batched_fun")
    return batched_fun


def _count_stored_elements_per_batch(mat, n_batch: int = 0, n_dense: int = 0):
    """The number of stored elements `fromdense` needs for each batch of `mat` (nonzero
    sparse positions; a position whose dense block has a nonzero counts once)."""
    mask = jnp.asarray(mat) != 0
    if n_dense > 0:
        mask = mask.any(tuple(-(i + 1) for i in range(n_dense)))
    return mask.sum(tuple(range(n_batch, mask.ndim)))


def _count_stored_elements(mat, n_batch: int = 0, n_dense: int = 0):
    """The nse `fromdense` needs for `mat`: the most stored elements any batch holds."""
    return _count_stored_elements_per_batch(mat, n_batch, n_dense).max(initial=0)


def _dot_general_validated_shape(lhs_shape, rhs_shape, dimension_numbers) -> tuple:
    """The shape of `dot_general` of operands of these shapes; TypeError, as lax's, where
    the dimension numbers do not fit them."""
    return _dot_general_shape(ShapedArray(tuple(lhs_shape), np.float32),
                              ShapedArray(tuple(rhs_shape), np.float32),
                              tuple(tuple(tuple(d) for d in p) for p in dimension_numbers))
