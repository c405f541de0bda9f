"""`random_bcoo` (JAX's `jax.experimental.sparse.random`): a BCOO array of random values at
random distinct (by default) positions, drawn as JAX draws them, so a key gives JAX's array.
It lives in the random layer, which the sparse package (in `api/`, below it) cannot import;
`jax.experimental.sparse` (`_jax/experimental/sparse.py`) names it beside the rest.

    >>> M = random_bcoo(jax.random.key(0), (3, 4), nse=5)
    >>> M.nse, M.shape
    (5, (3, 4))
"""
from __future__ import annotations

import math
import operator

from .. import numpy as jnp
from ..api.sparse.bcoo import BCOO
from ..core import dtypes
from ..transforms.batching import vmap
from .discrete import choice
from .keys import split
from .samplers import uniform


def random_bcoo(key, shape, *, dtype=None, indices_dtype=None, nse=0.2, n_batch: int = 0,
                n_dense: int = 0, unique_indices: bool = True, sorted_indices: bool = False,
                generator=uniform, **kwds) -> BCOO:
    """Generate a random BCOO matrix: `nse` stored elements per batch (a fraction of the
    sparse size when 0 < nse < 1), values from `generator(key, shape=, dtype=, **kwds)`,
    positions from `random.choice` (distinct when `unique_indices`)."""
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    shape = tuple(map(operator.index, shape))
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
        raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for shape={shape}")
    n_sparse = len(shape) - n_batch - n_dense
    batch_shape, sparse_shape = shape[:n_batch], shape[n_batch:n_batch + n_sparse]
    dense_shape = shape[n_batch + n_sparse:]
    sparse_size = math.prod(sparse_shape)
    if not 0 <= nse < sparse_size:
        raise ValueError(f"got nse={nse}, expected to be between 0 and {sparse_size}")
    if 0 < nse < 1:
        nse = int(math.ceil(nse * sparse_size))
    nse = operator.index(nse)
    if indices_dtype is None:
        indices_dtype = dtypes.default_int_dtype()
    if sparse_size > jnp.iinfo(indices_dtype).max:
        raise ValueError(f"indices_dtype={indices_dtype} does not have enough range to "
                         f"generate sparse indices of size {sparse_size}.")

    def batch_indices(key):
        if not sparse_shape:
            return jnp.zeros((nse, n_sparse), dtype=indices_dtype)
        flat = choice(key, sparse_size, shape=(nse,),
                             replace=not unique_indices).astype(indices_dtype)
        return jnp.column_stack(jnp.unravel_index(flat, sparse_shape))

    keys = split(key, math.prod(batch_shape) + 1)
    data = generator(keys[0], shape=batch_shape + (nse,) + dense_shape, dtype=dtype, **kwds)
    indices = vmap(batch_indices)(keys[1:]).reshape(batch_shape + (nse, n_sparse))
    mat = BCOO((data, indices), shape=shape)
    return mat.sort_indices() if sorted_indices else mat
