"""JAX's low-level form of `sparsify` (its `sparse.transform`'s `SparsifyEnv`,
`SparsifyValue`, `arrays_to_spvalues`, `spvalues_to_arrays`, `spvalues_to_avals`,
`sparsify_raw`): arrays named by references into a list of buffers, so that two sparse
values may share one indices buffer. jxkernel's sparsify passes sparse arrays themselves
(`transform.py`); this form is a view of it: `sparsify_raw` makes the arrays of the
references, two sharing an indices reference sharing a sparsity pattern (so `x + y` adds
their data in place, as JAX's), runs the same interpreter and appends its outputs' buffers.

    >>> spenv = SparsifyEnv()
    >>> x, = arrays_to_spvalues(spenv, [BCOO.fromdense(jnp.array([0., 2., 3.]))])
    >>> x
    SparsifyValue(shape=(3,), data_ref=0, indices_ref=1, indptr_ref=None, indices_sorted=True, unique_indices=True)
    >>> outs, tree = sparsify_raw(lambda a: 2 * a)(spenv, x)
    >>> spvalues_to_arrays(spenv, outs)[0].todense().tolist()
    [0.0, 4.0, 6.0]
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ... import numpy as jnp
from ...core.avals import ShapedArray, get_aval
from ...core.staging import trace_to_jaxpr
from ...transforms.api_util import flatten_fun
from ...tree_util import tree_flatten, tree_map
from .bcoo import BCOO
from .bcsr import BCSR
from .transform import _with_pattern, eval_sparse


class SparsifyValue(NamedTuple):
    """A dense array (`indices_ref` None), a BCOO (no `indptr_ref`) or a BCSR, by the
    positions of its buffers in a `SparsifyEnv`."""
    shape: tuple
    data_ref: int | None
    indices_ref: int | None = None
    indptr_ref: int | None = None
    indices_sorted: bool | None = False
    unique_indices: bool | None = False

    @property
    def ndim(self):
        return len(self.shape)

    def is_sparse(self):
        return self.indices_ref is not None

    def is_dense(self):
        return self.indices_ref is None

    def is_bcoo(self):
        return self.is_sparse() and self.indptr_ref is None

    def is_bcsr(self):
        return self.is_sparse() and self.indptr_ref is not None


class SparsifyEnv:
    """The buffers (arrays or tracers) that `SparsifyValue`s refer to by position."""

    def __init__(self, bufs=()):
        self._buffers = list(bufs)

    def _push(self, arr) -> int:
        self._buffers.append(jnp.asarray(arr))
        return len(self._buffers) - 1

    def _buffer(self, ref, what, spvalue):
        if ref is None:
            raise ValueError(f"SparsifyEnv.{what}: {spvalue} has no {what} buffer "
                             f"({what}_ref is None)")
        return self._buffers[ref]

    def data(self, spvalue):
        """The data buffer of `spvalue` (a dense value's array)."""
        return self._buffer(spvalue.data_ref, "data", spvalue)

    def indices(self, spvalue):
        return self._buffer(spvalue.indices_ref, "indices", spvalue)

    def indptr(self, spvalue):
        return self._buffer(spvalue.indptr_ref, "indptr", spvalue)

    def dense(self, data) -> SparsifyValue:
        """A new dense value holding `data`."""
        return SparsifyValue(np.shape(data), self._push(data))

    def sparse(self, shape, data=None, indices=None, indptr=None, *, data_ref=None,
               indices_ref=None, indptr_ref=None, indices_sorted=False,
               unique_indices=False) -> SparsifyValue:
        """A new sparse value: each buffer given as an array (appended) or as the reference
        of one already held (`indices_ref=0`: share that indices buffer)."""
        refs = []
        for name, buf, ref, needed in (("data", data, data_ref, True),
                                       ("indices", indices, indices_ref, True),
                                       ("indptr", indptr, indptr_ref, False)):
            if buf is not None and ref is not None:
                raise ValueError(f"SparsifyEnv.sparse: give {name} or {name}_ref, not both")
            if buf is not None:
                ref = self._push(buf)
            elif ref is not None and not 0 <= ref < len(self._buffers):
                raise ValueError(f"SparsifyEnv.sparse: {name}_ref={ref} is not one of the "
                                 f"{len(self._buffers)} buffers held")
            elif ref is None and needed:
                raise ValueError(f"SparsifyEnv.sparse: {name} or {name}_ref is required")
            refs.append(ref)
        return SparsifyValue(tuple(shape), *refs, indices_sorted=indices_sorted,
                             unique_indices=unique_indices)


def _is_sparse_obj(x) -> bool:
    return isinstance(x, (BCOO, BCSR))


def _is_spvalue(x) -> bool:
    return isinstance(x, SparsifyValue)


def arrays_to_spvalues(spenv: SparsifyEnv, args):
    """`args` (a pytree of arrays, BCOO and BCSR) as SparsifyValues, their buffers appended
    to `spenv`."""
    def one(arg):
        if isinstance(arg, BCOO):
            return spenv.sparse(arg.shape, arg.data, arg.indices,
                                indices_sorted=arg.indices_sorted,
                                unique_indices=arg.unique_indices)
        if isinstance(arg, BCSR):
            return spenv.sparse(arg.shape, arg.data, arg.indices, arg.indptr,
                                indices_sorted=arg.indices_sorted,
                                unique_indices=arg.unique_indices)
        return spenv.dense(arg)
    return tree_map(one, args, is_leaf=_is_sparse_obj)


def spvalues_to_arrays(spenv: SparsifyEnv, spvalues):
    """The arrays (BCOO, BCSR or dense) that a pytree of SparsifyValues refers to."""
    def one(spvalue):
        flags = dict(shape=spvalue.shape, indices_sorted=spvalue.indices_sorted,
                     unique_indices=spvalue.unique_indices)
        if spvalue.is_bcoo():
            return BCOO((spenv.data(spvalue), spenv.indices(spvalue)), **flags)
        if spvalue.is_bcsr():
            return BCSR((spenv.data(spvalue), spenv.indices(spvalue), spenv.indptr(spvalue)),
                        **flags)
        return spenv.data(spvalue)
    return tree_map(one, spvalues, is_leaf=_is_spvalue)


def spvalues_to_avals(spenv: SparsifyEnv, spvalues):
    """The abstract value (shape, dtype, weak type of the data) of each SparsifyValue."""
    def one(spvalue):
        data = get_aval(spenv.data(spvalue))
        return ShapedArray(spvalue.shape, data.dtype, weak_type=data.weak_type)
    return tree_map(one, spvalues, is_leaf=_is_spvalue)


def sparsify_raw(f):
    """`f` run on SparsifyValues: `sparsify_raw(f)(spenv, *spvalues, **params)` is `(the
    outputs' SparsifyValues, their tree)`, the outputs' buffers appended to `spenv`."""
    def wrapped(spenv, *spvalues, **params):
        flat, in_tree = tree_flatten(spvalues, is_leaf=_is_spvalue)
        flat_fun, out_tree = flatten_fun(functools.partial(f, **params), in_tree)
        closed = trace_to_jaxpr(flat_fun, spvalues_to_avals(spenv, flat))
        # one sparsity pattern per indices buffer: values sharing it share their indices
        patterns = {}
        args = [_with_pattern(x, patterns.setdefault((v.indices_ref, v.indptr_ref), object()))
                if v.is_sparse() else x
                for v, x in zip(flat, spvalues_to_arrays(spenv, flat))]
        outs = eval_sparse(closed.jaxpr, closed.consts, args)
        return list(arrays_to_spvalues(spenv, outs)), out_tree()
    return wrapped
