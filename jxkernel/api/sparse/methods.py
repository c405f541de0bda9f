"""The array methods and operators of BCOO and BCSR (JAX's, defined in its transform.py to
avoid circular imports, as here in a module of their own): each operator is a sparsified
jnp function, `sum`/`reshape`/`astype`/`[...]` sparsify the dense method, and
`sum_duplicates`/`sort_indices`/`update_layout` call the BCOO functions. Set on the classes
when the package is imported.

    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> (M[1] * 3).todense()
    Array([6., 0.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .bcoo import BCOO
from .bcoo_layout import (bcoo_eliminate_zeros, bcoo_sort_indices, bcoo_sum_duplicates,
                          bcoo_update_layout)
from .bcsr import BCSR
from .bcsr_ops import bcsr_eliminate_zeros, bcsr_sum_duplicates
from .transform import sparsify


def _sum(self, *args, **kwargs):
    """Sum array along axis."""
    return sparsify(lambda x: x.sum(*args, **kwargs))(self)


def _reshape(self, *args, **kwargs):
    """Returns an array containing the same data with a new shape."""
    return sparsify(lambda x: x.reshape(*args, **kwargs))(self)


def _astype(self, *args, **kwargs):
    """Copy the array and cast to a specified dtype."""
    return sparsify(lambda x: x.astype(*args, **kwargs))(self)


def _swap_args(f):
    return lambda a, b: f(b, a)


def _getitem(self, idx):
    """Index a BCOO as an array (ints, slices, None, ellipsis, integer arrays; traced ones
    too): the sparsified indexing, whose slice, dynamic_slice, squeeze, broadcast_in_dim
    and gather have sparse rules."""
    result = sparsify(lambda x: x[idx])(self)
    if isinstance(self, BCOO) and not isinstance(result, BCOO) and np.size(result) == 0:
        # an empty result comes out dense (the indexing never reads the operand): as JAX,
        # made a BCOO again
        result = BCOO.fromdense(result)
    return result


def _iter(self):
    return iter(self[i] for i in range(self.shape[0]))


def _update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error"):
    """Update the storage layout (i.e. n_batch & n_dense) of a BCOO matrix (see
    `bcoo_update_layout`)."""
    return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                              on_inefficient=on_inefficient)


def _sum_duplicates(self, nse=None, remove_zeros=True):
    """Return a copy of the array with duplicate indices summed (and, with `remove_zeros`,
    explicit zeros dropped), indices sorted; `nse` as in `bcoo_sum_duplicates`."""
    if remove_zeros:
        return bcoo_eliminate_zeros(self, nse=nse)
    return bcoo_sum_duplicates(self, nse=nse)


def _bcsr_sum_duplicates(self, nse=None, remove_zeros=True):
    """Return a copy of the array with duplicate indices summed (and, with `remove_zeros`,
    explicit zeros dropped), indices sorted."""
    if remove_zeros:
        return bcsr_eliminate_zeros(self, nse=nse)
    return bcsr_sum_duplicates(self, nse=nse)


def _sort_indices(self):
    """Return a copy of the matrix with indices sorted."""
    return bcoo_sort_indices(self)


_BCOO_METHODS = {
    "astype": _astype,
    "reshape": _reshape,
    "sum": _sum,
    "__abs__": sparsify(jnp.abs),
    "__neg__": sparsify(jnp.negative),
    "__pos__": sparsify(jnp.positive),
    "__matmul__": sparsify(jnp.matmul),
    "__rmatmul__": sparsify(_swap_args(jnp.matmul)),
    "__mul__": sparsify(jnp.multiply),
    "__rmul__": sparsify(_swap_args(jnp.multiply)),
    "__truediv__": sparsify(jnp.divide),
    "__add__": sparsify(jnp.add),
    "__radd__": sparsify(_swap_args(jnp.add)),
    "__sub__": sparsify(jnp.subtract),
    "__rsub__": sparsify(_swap_args(jnp.subtract)),
    "__rtruediv__": sparsify(_swap_args(jnp.divide)),
    "__pow__": lambda x, y: sparsify(lambda x: jnp.power(x, y))(x),
    "__rpow__": sparsify(_swap_args(jnp.power)),
    "__getitem__": _getitem,
    "__iter__": _iter,
    "__gt__": sparsify(jnp.greater),
    "__ge__": sparsify(jnp.greater_equal),
    "__lt__": sparsify(jnp.less),
    "__le__": sparsify(jnp.less_equal),
    "__eq__": sparsify(jnp.equal),
    "__ne__": sparsify(jnp.not_equal),
    "update_layout": _update_layout,
    "sum_duplicates": _sum_duplicates,
    "sort_indices": _sort_indices,
}
for _name, _method in _BCOO_METHODS.items():
    setattr(BCOO, _name, _method)
for _name in ("__matmul__", "__rmatmul__"):
    setattr(BCSR, _name, _BCOO_METHODS[_name])
BCSR.__getitem__ = _getitem
BCSR.sum_duplicates = _bcsr_sum_duplicates
