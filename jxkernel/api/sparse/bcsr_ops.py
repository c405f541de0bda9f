"""BCSR's functions made of BCOO's (JAX's `bcsr_sum_duplicates`, `bcsr_eliminate_zeros`,
`bcsr_broadcast_in_dim`, `bcsr_concatenate`): the BCOO array the BCSR stands for, the BCOO
function, and back (`from_bcoo` sorts the indices first).

    >>> M = BCSR.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> bcsr_concatenate([M, M], dimension=0).todense().tolist()
    [[0.0, 1.0], [2.0, 0.0], [0.0, 1.0], [2.0, 0.0]]
"""
from __future__ import annotations

from .bcoo_layout import bcoo_eliminate_zeros, bcoo_sum_duplicates
from .bcoo_shape import bcoo_broadcast_in_dim, bcoo_concatenate
from .bcsr import BCSR


def bcsr_sum_duplicates(mat: BCSR, nse: int | None = None) -> BCSR:
    """Sums duplicate indices within a BCSR array, returning an array with sorted indices
    (`nse` as in `bcoo_sum_duplicates`)."""
    return BCSR.from_bcoo(bcoo_sum_duplicates(mat.to_bcoo(), nse=nse))


def bcsr_eliminate_zeros(mat: BCSR, nse: int | None = None) -> BCSR:
    """`mat` without its explicitly stored zeros, duplicates summed."""
    return BCSR.from_bcoo(bcoo_eliminate_zeros(mat.to_bcoo(), nse=nse))


def bcsr_broadcast_in_dim(mat: BCSR, *, shape, broadcast_dimensions, sharding=None) -> BCSR:
    """`lax.broadcast_in_dim` of a BCSR array (as `bcoo_broadcast_in_dim`)."""
    return BCSR.from_bcoo(bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape,
                                                broadcast_dimensions=broadcast_dimensions))


def bcsr_concatenate(operands, *, dimension: int) -> BCSR:
    """`lax.concatenate` of BCSR arrays along a batch or sparse dim (as
    `bcoo_concatenate`)."""
    return BCSR.from_bcoo(bcoo_concatenate([mat.to_bcoo() for mat in operands],
                                           dimension=dimension))
