"""BCSR, JAX's batched compressed-sparse-row array, and its primitives with their rules:
`bcsr_fromdense`, `bcsr_todense`, `bcsr_extract` and `bcsr_dot_general`. Each is defined
through the BCOO primitive of the same job on the BCOO indices its (indices, indptr) stand
for, as JAX's are.

A BCSR of shape `batch + (rows, cols) + dense` stores `data` of shape `batch + (nse,) +
dense`, `indices` (the column of each stored element) of shape `batch + (nse,)`, and
`indptr` of shape `batch + (rows + 1,)`: row r's elements are `indptr[r]:indptr[r + 1]`.

    >>> M = BCSR.fromdense(jnp.array([[0., 2., 0.], [1., 0., 4.]]))
    >>> M.indices.tolist(), M.indptr.tolist()
    ([1, 0, 2], [0, 1, 3])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...lax import _lowering as hl
from ...lax.dot import _dot_general_batch_dim_nums, _dot_general_dtype, _dot_general_shape
from ...transforms import ad_util as ad
from ...tree_util import register_pytree_node_class
from . import bcoo
from ._base import JAXSparse, SparseInfo
from .batch_vmap import nfold_vmap
from .bcoo import _concrete_nse, _count_stored_elements
from .bcoo_layout import bcoo_sort_indices
from .methods import BCSRMethods


class BCSRProperties(NamedTuple):
    n_batch: int
    n_dense: int
    nse: int


def _compatible(shape1, shape2) -> bool:
    return all(s1 in (1, s2) for s1, s2 in zip(shape1, shape2))


def _validate_indices(indices_shape, indptr_shape, shape) -> BCSRProperties:
    shape = tuple(shape)
    nse = indices_shape[-1]
    n_batch = len(indices_shape) - 1
    n_dense = len(shape) - n_batch - 2
    if n_dense < 0:
        raise ValueError(f"Invalid indices.shape={tuple(indices_shape)} for shape={shape}")
    if not _compatible(indices_shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"indices batch dimensions not compatible for "
                         f"indices.shape={tuple(indices_shape)}, shape={shape}")
    if not _compatible(indptr_shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"indptr batch dimensions not compatible for "
                         f"indptr.shape={tuple(indptr_shape)}, shape={shape}")
    if tuple(indptr_shape[n_batch:]) != (shape[n_batch] + 1,):
        raise ValueError("indptr shape must match the matrix shape plus 1.")
    return BCSRProperties(n_batch, n_dense, nse)


def _validate(data_shape, indices_shape, indptr_shape, shape) -> BCSRProperties:
    props = _validate_indices(indices_shape, indptr_shape, shape)
    shape = tuple(shape)
    n_batch, n_dense, nse = props
    if not _compatible(data_shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"data batch dimensions not compatible for "
                         f"data.shape={tuple(data_shape)}, shape={shape}")
    if tuple(data_shape[len(data_shape) - n_dense - 1:]) != (nse,) + shape[n_batch + 2:]:
        raise ValueError(f"Invalid data.shape={tuple(data_shape)} for nse={nse}, "
                         f"n_batch={n_batch}, n_dense={n_dense}")
    return props


def _csr_to_coo(indices, indptr):
    """(row, col) of each stored element of one CSR matrix: a row is the number of row
    starts at or before the element's slot, less one."""
    return jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1, indices


def _bcsr_to_bcoo(indices, indptr, *, shape):
    """The BCOO indices (batch + (nse, 2)) of BCSR (indices, indptr)."""
    n_batch = _validate_indices(indices.shape, indptr.shape, shape).n_batch
    rows, cols = nfold_vmap(_csr_to_coo, n_batch)(indices, indptr)
    return jnp.stack([rows, cols], axis=indices.ndim)


def _bcoo_to_bcsr(indices, *, shape, index_dtype):
    """BCSR (indices, indptr) of lexicographically sorted BCOO indices."""
    n_batch, n_sparse, _, _ = bcoo._validate_indices(indices.shape, shape)
    if n_sparse != 2:
        raise ValueError("Must have 2 sparse dimensions to be converted to BCSR.")
    n_rows = shape[n_batch]

    def row_starts(rows):
        counts = jnp.bincount(rows, length=n_rows).astype(index_dtype)
        return jnp.zeros(n_rows + 1, index_dtype).at[1:].set(jnp.cumsum(counts))
    return indices[..., 1], nfold_vmap(row_starts, n_batch, broadcasted=False)(indices[..., 0])


def _move_batch_to_front(vals, dims, spinfo, size=None):
    data, indices, indptr = vals
    n_batch = indices.ndim - 1 + (dims[1] is None)
    if not all(d is None or 0 <= d < n_batch for d in dims):
        raise NotImplementedError(f"batch_dims must be None or satisfy 0 < dim < n_batch. "
                                  f"Got batch_dims={tuple(dims)} for n_batch={n_batch}.")
    moved = [lax.expand_dims(x, (0,)) if d is None else jnp.moveaxis(x, d, 0)
             for x, d in zip(vals, dims)]
    if size is None:
        size = max(x.shape[d] for x, d in zip(vals, dims) if d is not None)
    return (*moved, SparseInfo((size, *spinfo.shape), spinfo.indices_sorted,
                               spinfo.unique_indices))


# ------------------------------------------------------------------ bcsr_fromdense
bcsr_fromdense_p = Primitive("bcsr_fromdense", multiple_results=True)


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    if mat.ndim - n_dense - n_batch != 2:
        raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    m = bcoo.bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                            n_batch=n_batch)
    indices, indptr = _bcoo_to_bcsr(m.indices, shape=mat.shape, index_dtype=index_dtype)
    return [m.data, indices, indptr]


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    if n_sparse != 2:
        raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    batch = mat.shape[:n_batch]
    return [ShapedArray(batch + (nse,) + mat.shape[n_batch + n_sparse:], mat.dtype),
            ShapedArray(batch + (nse,), np.dtype(index_dtype)),
            ShapedArray(batch + (mat.shape[n_batch] + 1,), np.dtype(index_dtype))]


def _fromdense_jvp(primals, tangents, **params):
    (mat,), (mat_dot,) = primals, tangents
    data, indices, indptr = bcsr_fromdense_p.bind(mat, **params)
    data_dot = ad.Zero.like(data) if type(mat_dot) is ad.Zero else \
        _bcsr_extract(indices, indptr, mat_dot)
    return [data, indices, indptr], [data_dot, ad.Zero.like(indices), ad.Zero.like(indptr)]


def _fromdense_transpose(ct, mat, **params):
    if type(ct[0]) is ad.Zero:
        return [ad.Zero(mat.aval)]
    raise ValueError("Cannot transpose bcsr_fromdense: its indices depend on the values")


def _fromdense_batching(vals, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (bdim,) = vals, dims
    if not 0 <= bdim <= n_batch:
        raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={bdim}, n_batch={n_batch}")
    return (bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                                  index_dtype=index_dtype), [bdim] * 3)


abstract_eval_rules[bcsr_fromdense_p] = _fromdense_abstract_eval
lowering_rules[bcsr_fromdense_p] = hl.lower_fun(_fromdense_impl, multiple_results=True)
numpy_rules[bcsr_fromdense_p] = hl.numpy_fun(_fromdense_impl, multiple_results=True)
jvp_rules[bcsr_fromdense_p] = _fromdense_jvp
transpose_rules[bcsr_fromdense_p] = _fromdense_transpose
batching_rules[bcsr_fromdense_p] = _fromdense_batching


def bcsr_fromdense(mat, *, nse: int | None = None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCSR:
    """The BCSR array of the dense `mat` (`nse` as in `bcoo_fromdense`)."""
    mat = jnp.asarray(mat)
    bufs = _bcsr_fromdense(mat, nse=_count_stored_elements(mat, n_batch, n_dense)
                           if nse is None else nse, n_batch=n_batch, n_dense=n_dense,
                           index_dtype=index_dtype)
    return BCSR(bufs, shape=mat.shape)


def _bcsr_fromdense(mat, *, nse, n_batch: int = 0, n_dense: int = 0,
                    index_dtype=np.int32) -> tuple:
    """The buffers (data, indices, indptr) of `bcsr_fromdense` (JAX's buffer-level form;
    `nse` concrete)."""
    return tuple(bcsr_fromdense_p.bind(jnp.asarray(mat), nse=_concrete_nse(nse),
                                       n_batch=int(n_batch), n_dense=int(n_dense),
                                       index_dtype=np.dtype(index_dtype)))


# ------------------------------------------------------------------ bcsr_todense
bcsr_todense_p = Primitive("bcsr_todense")


def _todense_impl(data, indices, indptr, *, spinfo):
    coo = _bcsr_to_bcoo(indices, indptr, shape=spinfo.shape)
    return bcoo.bcoo_todense(bcoo.BCOO((data, coo), shape=spinfo.shape))


def _todense_abstract_eval(data, indices, indptr, *, spinfo):
    _validate(data.shape, indices.shape, indptr.shape, spinfo.shape)
    return ShapedArray(spinfo.shape, data.dtype)


def _todense_transpose(ct, data, indices, indptr, *, spinfo):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [ad.Zero(data.aval), None, None]
    return [_bcsr_extract(indices, indptr, ct), None, None]


def _todense_batching(vals, dims, *, spinfo):
    data, indices, indptr, spinfo = _move_batch_to_front(vals, dims, spinfo)
    return _bcsr_todense(data, indices, indptr, spinfo=spinfo), 0


abstract_eval_rules[bcsr_todense_p] = _todense_abstract_eval
lowering_rules[bcsr_todense_p] = hl.lower_fun(_todense_impl)
numpy_rules[bcsr_todense_p] = hl.numpy_fun(_todense_impl)
ad.defjvp(bcsr_todense_p, lambda t, ans, data, indices, indptr, *, spinfo:
          _bcsr_todense(t, indices, indptr, spinfo=spinfo), None, None)
transpose_rules[bcsr_todense_p] = _todense_transpose
batching_rules[bcsr_todense_p] = _todense_batching


def _bcsr_todense(data, indices, indptr, *, spinfo):
    return bcsr_todense_p.bind(jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr),
                               spinfo=spinfo)


def bcsr_todense(mat: BCSR):
    """The dense array of the BCSR array `mat`."""
    return _bcsr_todense(mat.data, mat.indices, mat.indptr, spinfo=mat._info)


# ------------------------------------------------------------------ bcsr_extract
bcsr_extract_p = Primitive("bcsr_extract")


def _extract_impl(indices, indptr, mat):
    return bcoo._bcoo_extract(_bcsr_to_bcoo(indices, indptr, shape=mat.shape), mat)


def _extract_abstract_eval(indices, indptr, mat):
    n_batch, n_dense, nse = _validate_indices(indices.shape, indptr.shape, mat.shape)
    return ShapedArray(mat.shape[:n_batch] + (nse,) + mat.shape[mat.ndim - n_dense:], mat.dtype)


def _extract_transpose(ct, indices, indptr, mat):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [None, None, ad.Zero(mat.aval)]
    return [None, None, _bcsr_todense(ct, indices, indptr, spinfo=SparseInfo(mat.aval.shape))]


def _extract_batching(vals, dims):
    indices, indptr, mat = vals
    bdims = {d for d in dims if d is not None}
    if len(bdims) != 1:
        raise NotImplementedError("bcoo_extract with unequal batch dimensions.")
    bdim = bdims.pop()
    if dims[0] is None:
        indices = lax.expand_dims(indices, (bdim,))
    if dims[1] is None:
        indptr = lax.expand_dims(indptr, (bdim,))
    if dims[2] is None:
        shape = list(mat.shape)
        shape.insert(bdim, indices.shape[bdim])
        mat = lax.broadcast_in_dim(mat, shape, tuple(d for d in range(len(shape)) if d != bdim))
    if bdim >= indices.ndim - 1:
        raise ValueError(f"batch_dims={tuple(dims)} out of range for indices with "
                         f"n_batch={indices.ndim - 1}")
    return _bcsr_extract(indices, indptr, mat), bdim


abstract_eval_rules[bcsr_extract_p] = _extract_abstract_eval
lowering_rules[bcsr_extract_p] = hl.lower_fun(_extract_impl)
numpy_rules[bcsr_extract_p] = hl.numpy_fun(_extract_impl)
ad.defjvp(bcsr_extract_p, None, None,
          lambda t, ans, indices, indptr, mat: _bcsr_extract(indices, indptr, t))
transpose_rules[bcsr_extract_p] = _extract_transpose
batching_rules[bcsr_extract_p] = _extract_batching


def _bcsr_extract(indices, indptr, mat):
    return bcsr_extract_p.bind(jnp.asarray(indices), jnp.asarray(indptr), jnp.asarray(mat))


def bcsr_extract(indices, indptr, mat):
    """The values of the dense `mat` at BCSR (indices, indptr): a BCSR's data."""
    return _bcsr_extract(indices, indptr, mat)


# ------------------------------------------------------------------ bcsr_dot_general
bcsr_dot_general_p = Primitive("bcsr_dot_general")


def _dot_general_impl(lhs_data, lhs_indices, lhs_indptr, rhs, *, dimension_numbers,
                      preferred_element_type, lhs_spinfo):
    coo = _bcsr_to_bcoo(lhs_indices, lhs_indptr, shape=lhs_spinfo.shape)
    return bcoo._dot_general_impl(lhs_data, coo, rhs, dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type,
                                  lhs_spinfo=lhs_spinfo)


def _dot_general_abstract_eval(lhs_data, lhs_indices, lhs_indptr, rhs, *, dimension_numbers,
                               preferred_element_type, lhs_spinfo):
    (lhs_contract, _), (lhs_batch, _) = dimension_numbers
    props = _validate_indices(lhs_indices.shape, lhs_indptr.shape, lhs_spinfo.shape)
    dense_lhs = ShapedArray(lhs_spinfo.shape, lhs_data.dtype)
    shape = _dot_general_shape(dense_lhs, rhs, dimension_numbers)
    dtype = _dot_general_dtype(dense_lhs, rhs, preferred_element_type)
    if lhs_batch and max(lhs_batch) >= props.n_batch:
        raise NotImplementedError(
            "bcsr_dot_general batch dimensions must be among the batch dimensions in the "
            f"sparse representtaion.\ngot lhs_batch={tuple(lhs_batch)}, "
            f"props.n_batch={props.n_batch}")
    if any(d >= props.n_batch + 2 for d in lhs_contract):
        raise NotImplementedError("bcsr_dot_general: contracting over dense dimensions.")
    return ShapedArray(shape, np.dtype(dtype))


def _dot_general_transpose(ct, lhs_data, lhs_indices, lhs_indptr, rhs, **params):
    if ad.is_undefined(lhs_indices) or ad.is_undefined(lhs_indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    coo = _bcsr_to_bcoo(lhs_indices, lhs_indptr, shape=params["lhs_spinfo"].shape)
    data_ct, _, rhs_ct = bcoo._dot_general_transpose(ct, lhs_data, coo, rhs, **params)
    return [data_ct, None, None, rhs_ct]


def _dot_general_batching(vals, dims, *, dimension_numbers, preferred_element_type,
                          lhs_spinfo):
    rhs, rhs_bdim = vals[3], dims[3]
    data, indices, indptr, spinfo = _move_batch_to_front(
        vals[:3], dims[:3], lhs_spinfo, None if rhs_bdim is None else rhs.shape[rhs_bdim])
    new_dims, out_dim = _dot_general_batch_dim_nums((len(lhs_spinfo.shape), rhs.ndim),
                                                    (0, rhs_bdim), dimension_numbers)
    return _bcsr_dot_general(data, indices, indptr, rhs, dimension_numbers=new_dims,
                             preferred_element_type=preferred_element_type,
                             lhs_spinfo=spinfo), out_dim


abstract_eval_rules[bcsr_dot_general_p] = _dot_general_abstract_eval
lowering_rules[bcsr_dot_general_p] = hl.lower_fun(_dot_general_impl)
numpy_rules[bcsr_dot_general_p] = hl.numpy_fun(_dot_general_impl)
ad.defjvp(bcsr_dot_general_p,
          lambda t, ans, data, indices, indptr, rhs, **params:
          _bcsr_dot_general(t, indices, indptr, rhs, **params),
          None, None,
          lambda t, ans, data, indices, indptr, rhs, **params:
          _bcsr_dot_general(data, indices, indptr, t, **params))
transpose_rules[bcsr_dot_general_p] = _dot_general_transpose
batching_rules[bcsr_dot_general_p] = _dot_general_batching


def _bcsr_dot_general(lhs_data, lhs_indices, lhs_indptr, rhs, *, dimension_numbers,
                      preferred_element_type, lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((bcoo._index_tuple(lc), bcoo._index_tuple(rc)),
            (bcoo._index_tuple(lb), bcoo._index_tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
    return bcsr_dot_general_p.bind(jnp.asarray(lhs_data), jnp.asarray(lhs_indices),
                                   jnp.asarray(lhs_indptr), jnp.asarray(rhs),
                                   dimension_numbers=dims,
                                   preferred_element_type=preferred_element_type,
                                   lhs_spinfo=lhs_spinfo)


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` of a BCSR lhs and a dense rhs; the result is dense."""
    del precision, out_sharding        # unused, as in JAX
    if isinstance(rhs, JAXSparse):
        raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and "
                                  "ndarray rhs.")
    if isinstance(lhs, BCSR):
        return _bcsr_dot_general(lhs.data, lhs.indices, lhs.indptr, rhs,
                                 dimension_numbers=dimension_numbers,
                                 preferred_element_type=preferred_element_type,
                                 lhs_spinfo=lhs._info)
    if isinstance(lhs, JAXSparse):
        raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and "
                                  "ndarray rhs.")
    return lax.dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                           preferred_element_type=preferred_element_type)


# ------------------------------------------------------------------ BCSR
@register_pytree_node_class
class BCSR(BCSRMethods, JAXSparse):
    """Experimental batched CSR matrix implemented in JAX.

    >>> BCSR.fromdense(jnp.eye(2)).todense()
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    def __init__(self, args, *, shape, indices_sorted: bool = False,
                 unique_indices: bool = False):
        self.data, self.indices, self.indptr = map(jnp.asarray, args)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=shape)
        props = _validate(self.data.shape, self.indices.shape, self.indptr.shape, self.shape)
        if len(self.shape) - props.n_batch - props.n_dense != 2:
            raise ValueError(f"BCSR array must have 2 sparse dimensions; "
                             f"{len(self.shape) - props.n_batch - props.n_dense} is given.")

    @property
    def _bufs(self):
        return (self.data, self.indices, self.indptr)

    @property
    def nse(self) -> int:
        return self.indices.shape[-1]

    @property
    def n_batch(self) -> int:
        return self.indices.ndim - 1

    @property
    def n_sparse(self) -> int:
        return 2

    @property
    def n_dense(self) -> int:
        return self.data.ndim - self.indices.ndim

    def transpose(self, *args, **kwargs):
        raise NotImplementedError("Transpose is not implemented.")

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
            raise ValueError(f"BCSR.tree_unflatten: invalid aux_data={aux_data!r}")
        obj.__dict__.update(**aux_data)
        obj.shape = _unflattened_shape(aux_data["shape"], *children)
        return obj

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
        shape = tuple(shape)
        if n_dense < 0 or n_batch < 0 or nse < 0:
            raise ValueError(f"Invalid inputs: shape={shape}, n_dense={n_dense}, "
                             f"n_batch={n_batch}, nse={nse}")
        if len(shape) - n_dense - n_batch != 2:
            raise ValueError("BCSR sparse.empty: must have 2 sparse dimensions.")
        batch, (rows, cols), dense = shape[:n_batch], shape[n_batch:n_batch + 2], \
            shape[n_batch + 2:]
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.full((*batch, nse), cols, index_dtype)
        indptr = jnp.zeros((*batch, rows + 1), index_dtype)
        return cls((data, indices, indptr), shape=shape)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """Create a BCSR array from a (dense) :class:`Array`."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    def todense(self):
        """Create a dense version of the array."""
        return bcsr_todense(self)

    def to_bcoo(self) -> bcoo.BCOO:
        return bcoo.BCOO((self.data, _bcsr_to_bcoo(self.indices, self.indptr,
                                                   shape=self.shape)), shape=self.shape)

    @classmethod
    def from_bcoo(cls, arr: bcoo.BCOO) -> BCSR:
        if arr.n_sparse != 2:
            raise NotImplementedError(f"BSCR.from_bcoo requires n_sparse=2; got "
                                      f"arr.n_sparse={arr.n_sparse}")
        if not arr.indices_sorted:
            arr = bcoo_sort_indices(arr)
        indices, indptr = _bcoo_to_bcsr(arr.indices, shape=arr.shape,
                                        index_dtype=arr.indices.dtype)
        return cls((arr.data, indices, indptr), shape=arr.shape)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0) -> BCSR:
        """Create a BCSR array from a :mod:`scipy.sparse` array."""
        if n_dense != 0 or n_batch != 0:
            raise NotImplementedError("BCSR from_scipy_sparse with nonzero n_dense/n_batch.")
        if mat.ndim != 2:
            raise ValueError(f"BCSR from_scipy_sparse requires 2D array; {mat.ndim}D is given.")
        mat = mat.tocsr()
        as_index = lambda x: jnp.asarray(x).astype(index_dtype or jnp.int32)
        return cls((jnp.asarray(mat.data), as_index(mat.indices), as_index(mat.indptr)),
                   shape=mat.shape)


def _unflattened_shape(shape, data, indices, indptr):
    """As BCOO's: under vmap the buffers' leading batch dims give the batch shape."""
    try:
        n_batch = len(indices.shape) - 1
        n_rest = 2 + len(data.shape) - len(indices.shape)
    except AttributeError:          # tree utilities that rebuild with placeholders
        return shape
    if n_batch < 0 or n_batch + n_rest == len(shape):
        return shape
    batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], indices.shape[:n_batch]))
    return batch + tuple(shape[len(shape) - n_rest:])
