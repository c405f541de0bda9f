"""The array methods and operators of BCOO and BCSR, as JAX's (which sets them on the classes
from its transform.py): mixins the classes inherit, `BCOOMethods` and `BCSRMethods`. Each
operator is a sparsified jnp function, `sum`/`reshape`/`astype`/`[...]` sparsify the dense
method, and `sum_duplicates`/`sort_indices`/`update_layout` call the layout functions.

    >>> from jxkernel.api.sparse import BCOO
    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> (M[1] * 3).todense()
    Array([6., 0.], dtype=float32)

The classes' modules import these mixins, and `sparsify` (transform.py) and the layout
functions (bcoo_layout.py, bcsr_ops.py) import the classes: so a method reads its function
from that module when called (`_late`), as numpy/array_methods.py reads jnp's, by which time
`jxkernel.api.sparse` has loaded them all.
"""
from __future__ import annotations

import functools
import sys

import numpy as np

from ... import numpy as jnp


def _late(module: str):
    """This package's `module`, loaded with the package (it imports the classes)."""
    return sys.modules[f"{__package__}.{module}"]


def _sparsified(f):
    """`sparsify(f)` (the same name, docstring and signature), read from transform.py at the
    call."""
    @functools.wraps(f)
    def method(*args, **kwargs):
        return _late("transform").sparsify(f)(*args, **kwargs)
    return method


def _swap_args(f):
    return lambda a, b: f(b, a)


class _SparseOperators:
    """What BCOO and BCSR share: `@` either way and indexing."""
    __matmul__ = _sparsified(jnp.matmul)
    __rmatmul__ = _sparsified(_swap_args(jnp.matmul))

    def __getitem__(self, idx):
        """Index the array as an array (ints, slices, None, ellipsis, integer arrays; traced
        ones too): the sparsified indexing, whose slice, dynamic_slice, squeeze,
        broadcast_in_dim and gather have sparse rules."""
        return _late("transform").sparsify(lambda x: x[idx])(self)


class BCOOMethods(_SparseOperators):
    """BCOO's operators and array methods."""
    __abs__ = _sparsified(jnp.abs)
    __neg__ = _sparsified(jnp.negative)
    __pos__ = _sparsified(jnp.positive)
    __mul__ = _sparsified(jnp.multiply)
    __rmul__ = _sparsified(_swap_args(jnp.multiply))
    __truediv__ = _sparsified(jnp.divide)
    __rtruediv__ = _sparsified(_swap_args(jnp.divide))
    __add__ = _sparsified(jnp.add)
    __radd__ = _sparsified(_swap_args(jnp.add))
    __sub__ = _sparsified(jnp.subtract)
    __rsub__ = _sparsified(_swap_args(jnp.subtract))
    __rpow__ = _sparsified(_swap_args(jnp.power))
    __gt__ = _sparsified(jnp.greater)
    __ge__ = _sparsified(jnp.greater_equal)
    __lt__ = _sparsified(jnp.less)
    __le__ = _sparsified(jnp.less_equal)
    __eq__ = _sparsified(jnp.equal)
    __ne__ = _sparsified(jnp.not_equal)
    __hash__ = None      # (JAXSparse's: not hashable; set again, as __eq__ is set here)

    def __pow__(self, y):
        """The array to the power `y` (its exponent held fixed, as JAX's)."""
        return _late("transform").sparsify(lambda x: jnp.power(x, y))(self)

    def __getitem__(self, idx):
        """Index the array as an array (the shared sparsified indexing), an empty result a
        BCOO too."""
        result = super().__getitem__(idx)
        if not isinstance(result, BCOOMethods) and np.size(result) == 0:
            # an empty result comes out dense (the indexing never reads the operand): as JAX,
            # made a BCOO again
            result = self.fromdense(result)
        return result

    def __iter__(self):
        return iter(self[i] for i in range(self.shape[0]))

    def sum(self, *args, **kwargs):
        """Sum array along axis."""
        return _late("transform").sparsify(lambda x: x.sum(*args, **kwargs))(self)

    def reshape(self, *args, **kwargs):
        """Returns an array containing the same data with a new shape."""
        return _late("transform").sparsify(lambda x: x.reshape(*args, **kwargs))(self)

    def astype(self, *args, **kwargs):
        """Copy the array and cast to a specified dtype."""
        return _late("transform").sparsify(lambda x: x.astype(*args, **kwargs))(self)

    def update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error"):
        """Update the storage layout (i.e. n_batch & n_dense) of a BCOO matrix (see
        `bcoo_update_layout`)."""
        return _late("bcoo_layout").bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                                                       on_inefficient=on_inefficient)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """Return a copy of the array with duplicate indices summed (and, with `remove_zeros`,
        explicit zeros dropped), indices sorted; `nse` as in `bcoo_sum_duplicates`."""
        layout = _late("bcoo_layout")
        if remove_zeros:
            return layout.bcoo_eliminate_zeros(self, nse=nse)
        return layout.bcoo_sum_duplicates(self, nse=nse)

    def sort_indices(self):
        """Return a copy of the matrix with indices sorted."""
        return _late("bcoo_layout").bcoo_sort_indices(self)


class BCSRMethods(_SparseOperators):
    """BCSR's operators and array methods."""

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """Return a copy of the array with duplicate indices summed (and, with `remove_zeros`,
        explicit zeros dropped), indices sorted."""
        ops = _late("bcsr_ops")
        if remove_zeros:
            return ops.bcsr_eliminate_zeros(self, nse=nse)
        return ops.bcsr_sum_duplicates(self, nse=nse)
