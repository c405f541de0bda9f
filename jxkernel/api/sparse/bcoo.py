"""BCOO, JAX's batched-coordinate sparse array, and its primitives, each with its rules
below it as lax's are: `bcoo_todense`, `bcoo_fromdense`, `bcoo_extract`, `bcoo_transpose`
and `bcoo_dot_general` (its public function, which also takes two BCOO arrays, is in
`bcoo_spdot.py`) (abstract eval; lowered, and run on the NumPy backend, by tracing its
definition in lax/jnp operations, as JAX's `mlir.lower_fun`; jvp, transpose, batching).

A BCOO of shape `batch + sparse + dense` stores `data` of shape `batch + (nse,) + dense` and
`indices` of shape `batch + (nse, n_sparse)`: element k of a batch is `data[..., k, ...]` at
the sparse position `indices[..., k, :]`. Unused slots hold an out-of-range index (the
sparse shape itself) and zero data, so scatters drop them and gathers fill zeros.

    >>> M = BCOO.fromdense(jnp.array([[0., 2., 0.], [1., 0., 4.]]))
    >>> M.indices.tolist(), M.data.tolist()
    ([[0, 1], [1, 0], [1, 2]], [2.0, 1.0, 4.0])
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import dtypes
from ...core.avals import ShapedArray, get_aval
from ...core.errors import ConcretizationTypeError
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...core.trace import Tracer
from ...lax import _lowering as hl
from ...lax.dot import (_dot_general_batch_dim_nums, _dot_general_dtype, _dot_general_shape,
                        _ranges_like, _remaining)
from ...numpy.setops import _unique
from ...transforms import ad_util as ad
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse, SparseInfo
from .batch_vmap import nfold_vmap
from .methods import BCOOMethods


class BCOOProperties(NamedTuple):
    n_batch: int
    n_sparse: int
    n_dense: int
    nse: int


def _validate_indices(indices_shape, shape) -> BCOOProperties:
    shape = tuple(shape)
    nse, n_sparse = indices_shape[-2:]
    n_batch = len(indices_shape) - 2
    n_dense = len(shape) - n_batch - n_sparse
    if n_dense < 0:
        raise ValueError(f"Invalid indices.shape={tuple(indices_shape)} for shape={shape}")
    if any(s1 not in (1, s2) for s1, s2 in zip(indices_shape[:n_batch], shape[:n_batch])):
        raise ValueError(f"indices batch dimensions not compatible for "
                         f"indices.shape={tuple(indices_shape)}, shape={shape}")
    return BCOOProperties(n_batch, n_sparse, n_dense, nse)


def _validate(data_shape, indices_shape, shape) -> BCOOProperties:
    props = _validate_indices(indices_shape, shape)
    n_batch, n_sparse, _, nse = props
    shape = tuple(shape)
    if any(s1 not in (1, s2) for s1, s2 in zip(data_shape[:n_batch], shape[:n_batch])):
        raise ValueError(f"data batch dimensions not compatible for "
                         f"data.shape={tuple(data_shape)}, shape={shape}")
    if tuple(data_shape[n_batch:]) != (nse,) + shape[n_batch + n_sparse:]:
        raise ValueError(f"Invalid data.shape={tuple(data_shape)} for nse={nse}, "
                         f"n_batch={n_batch}, n_dense={props.n_dense}")
    return props


def _batch_and_sparse_index(indices, shape, props):
    """The index tuple that puts each stored element of a batch at its place in an array of
    `shape`: an index array per batch dim (a broadcast grid) then one per sparse dim; an
    indices batch dim of size 1 is shared by the whole batch."""
    n_batch, n_sparse = props.n_batch, props.n_sparse
    picks = tuple(np.zeros(s, int) if i_s == 1 else np.arange(s)
                  for s, i_s in zip(shape[:n_batch], indices.shape[:n_batch]))
    grid = tuple(np.meshgrid(*picks, indexing="ij", sparse=True))
    sparse_ind = tuple(indices[grid + (slice(None), i)] for i in range(n_sparse))
    batch_grid = np.meshgrid(*(np.arange(s) for s in shape[:n_batch]), np.arange(1),
                             indexing="ij", sparse=True)
    return tuple(batch_grid)[:-1], sparse_ind


def _move_batch_to_front(vals, dims, spinfo, size=None):
    """(data, indices) with the vmapped axis first in both (inserted with size 1 where
    unbatched) and the SparseInfo of that one-more-batch-dim array."""
    data, indices = vals
    n_batch = indices.ndim - 2 + (dims[1] is None)
    if not all(d is None or 0 <= d < n_batch for d in dims):
        raise NotImplementedError(f"batch_dims must be None or satisfy 0 < dim < n_batch. "
                                  f"Got batch_dims={tuple(dims)} for n_batch={n_batch}.")
    data, indices = (lax.expand_dims(x, (0,)) if d is None else jnp.moveaxis(x, d, 0)
                     for x, d in zip((data, indices), dims))
    if size is None:
        size = max(x.shape[d] for x, d in zip(vals, dims) if d is not None)
    return data, indices, SparseInfo((size, *spinfo.shape), spinfo.indices_sorted,
                                     spinfo.unique_indices)


def _linear_in_data_jvp(f):
    """The JVP rule of `f(data, indices, **params) -> [data, indices]` where the indices
    choose where the data goes and the data moves linearly: the tangent takes the data's way,
    and integer indices have none.

    >>> m = BCOO.fromdense(jnp.array([[0., 2.], [3., 0.]]))
    >>> jvp = _linear_in_data_jvp(_bcoo_transpose)
    >>> _, (data_dot, indices_dot) = jvp((m.data, m.indices), (10 * m.data, None),
    ...                                  permutation=(1, 0), spinfo=m._info)
    >>> data_dot, type(indices_dot).__name__
    (Array([20., 30.], dtype=float32), 'Zero')
    """
    def jvp(primals, tangents, **params):
        data, indices = primals
        out = f(data, indices, **params)
        if type(tangents[0]) is ad.Zero:
            return out, [ad.Zero.like(out[0]), ad.Zero.like(out[1])]
        return out, [f(tangents[0], indices, **params)[0], ad.Zero.like(out[1])]
    return jvp


def _linear_in_data_transpose(data_cotangent):
    """The transpose rule of such an operation (see `_linear_in_data_jvp`), from
    `data_cotangent(ct, data, indices, **params)`, the data's cotangent for a nonzero
    cotangent `ct` of the output's data; the indices take none."""
    def transpose(ct, data, indices, **params):
        data_ct, _ = ct
        if ad.is_undefined(indices):
            raise ValueError("Cannot transpose with respect to sparse indices")
        if type(data_ct) is ad.Zero:
            return [ad.Zero(data.aval), None]
        return [data_cotangent(data_ct, data, indices, **params), None]
    return transpose


# ------------------------------------------------------------------ bcoo_todense
bcoo_todense_p = Primitive("bcoo_todense")


def _todense_impl(data, indices, *, spinfo):
    shape = spinfo.shape
    props = _validate(data.shape, indices.shape, shape)
    batch_ind, sparse_ind = _batch_and_sparse_index(indices, shape, props)
    if not sparse_ind:          # no sparse dims: every stored element lands on the same place
        data = data.sum(props.n_batch, keepdims=bool(batch_ind), dtype=data.dtype)
    # out-of-range (padding) indices are dropped by the scatter's default mode
    return jnp.zeros(shape, data.dtype).at[batch_ind + sparse_ind].add(data)


def _todense_abstract_eval(data, indices, *, spinfo):
    _validate(data.shape, indices.shape, spinfo.shape)
    return ShapedArray(spinfo.shape, data.dtype)


def _todense_transpose(ct, data, indices, *, spinfo):
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [ad.Zero(data.aval), None]
    return [_bcoo_extract(indices, ct), None]


def _todense_batching(vals, dims, *, spinfo):
    data, indices, spinfo = _move_batch_to_front(vals, dims, spinfo)
    return _bcoo_todense(data, indices, spinfo=spinfo), 0


abstract_eval_rules[bcoo_todense_p] = _todense_abstract_eval
lowering_rules[bcoo_todense_p] = hl.lower_fun(_todense_impl)
numpy_rules[bcoo_todense_p] = hl.numpy_fun(_todense_impl)
ad.defjvp(bcoo_todense_p,
          lambda t, ans, data, indices, *, spinfo: _bcoo_todense(t, indices, spinfo=spinfo), None)
transpose_rules[bcoo_todense_p] = _todense_transpose
batching_rules[bcoo_todense_p] = _todense_batching


def _bcoo_todense(data, indices, *, spinfo):
    return bcoo_todense_p.bind(jnp.asarray(data), jnp.asarray(indices), spinfo=spinfo)


def bcoo_todense(mat: BCOO):
    """The dense array of the BCOO array `mat` (duplicate indices summed)."""
    return _bcoo_todense(mat.data, mat.indices, spinfo=mat._info)


# ------------------------------------------------------------------ bcoo_extract
bcoo_extract_p = Primitive("bcoo_extract")


def _gather_at_indices(indices, arr, props):
    """arr's value at each stored index (zero at padding), of data's shape."""
    batch_ind, sparse_ind = _batch_and_sparse_index(indices, arr.shape, props)
    if not sparse_ind + batch_ind:
        return arr[None]
    return arr.at[batch_ind + sparse_ind].get(mode="fill", fill_value=0)


def _first_occurrences(indices, shape):
    """Each batch's distinct indices (sorted, padded to nse with the sparse shape) and the
    slot where each first occurs in `indices` (JAX's `_unique_indices(return_index=True)`)."""
    n_batch = indices.ndim - 2

    def one_batch(ind):
        nse, n_sparse = ind.shape
        if n_sparse == 0:        # every element sits at the one position: slot 0 holds it
            return jnp.zeros((1, 0), ind.dtype), jnp.zeros(1, np.int32)
        fill = jnp.array(shape[n_batch:n_batch + n_sparse], ind.dtype)[None, :]
        ind = jnp.where((ind >= fill).any(-1, keepdims=True), fill, ind)
        return _unique(ind, 0, return_index=True, size=nse, fill_value=fill)
    return nfold_vmap(one_batch, n_batch, broadcasted=False)(indices)


def _extract_summing_duplicates(indices, arr, props):
    """arr's value at each distinct index, put in the slot where that index first occurs;
    the other slots of a repeated index (and padding) hold zero."""
    unique, first = _first_occurrences(indices, arr.shape)
    values = _gather_at_indices(unique, arr, _validate_indices(unique.shape, arr.shape))
    slots = (props.nse, *values.shape[props.n_batch + 1:])
    return nfold_vmap(lambda v, i: jnp.zeros(slots, v.dtype).at[i].add(v), props.n_batch)(
        values, first)


def _extract_impl(indices, arr, *, assume_unique):
    props = _validate_indices(indices.shape, arr.shape)
    if not assume_unique:
        return _extract_summing_duplicates(indices, arr, props)
    result = _gather_at_indices(indices, arr, props)
    if props.n_sparse == 0 and props.nse != 1:
        shape = list(result.shape)
        shape[props.n_batch] = props.nse
        result = lax.broadcast_in_dim(result, shape, tuple(range(result.ndim)))
    return result


def _extract_abstract_eval(indices, arr, *, assume_unique):
    n_batch, _, n_dense, nse = _validate_indices(indices.shape, arr.shape)
    return ShapedArray(arr.shape[:n_batch] + (nse,) + arr.shape[arr.ndim - n_dense:], arr.dtype)


def _extract_transpose(ct, indices, arr, *, assume_unique):
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [None, ad.Zero(arr.aval)]
    if not assume_unique:
        # only the first slot of each index read arr there (JAX has no rule for this)
        ct = ct * _bcoo_extract(indices, jnp.ones(arr.aval.shape, ct.dtype),
                                assume_unique=False)
    return [None, _bcoo_todense(ct, indices, spinfo=SparseInfo(arr.aval.shape))]


def _extract_batching(vals, dims, *, assume_unique):
    indices, arr = vals
    if dims[0] is None:
        bdim = dims[1]
        indices = lax.expand_dims(indices, (bdim,))
    elif dims[1] is None:
        bdim = dims[0]
        shape = list(arr.shape)
        shape.insert(bdim, indices.shape[bdim])
        arr = lax.broadcast_in_dim(arr, shape, tuple(d for d in range(len(shape)) if d != bdim))
    else:
        if dims[0] != dims[1]:
            raise NotImplementedError("bcoo_extract with unequal batch dimensions.")
        bdim = dims[0]
    if bdim >= indices.ndim - 2:
        raise ValueError(f"batch_dims={tuple(dims)} out of range for indices with "
                         f"n_batch={indices.ndim - 2}")
    return _bcoo_extract(indices, arr, assume_unique=assume_unique), bdim


abstract_eval_rules[bcoo_extract_p] = _extract_abstract_eval
lowering_rules[bcoo_extract_p] = hl.lower_fun(_extract_impl)
numpy_rules[bcoo_extract_p] = hl.numpy_fun(_extract_impl)
ad.defjvp(bcoo_extract_p, None,
          lambda t, ans, indices, arr, *, assume_unique:
          _bcoo_extract(indices, t, assume_unique=assume_unique))
transpose_rules[bcoo_extract_p] = _extract_transpose
batching_rules[bcoo_extract_p] = _extract_batching


def _bcoo_extract(indices, arr, *, assume_unique=True):
    return bcoo_extract_p.bind(jnp.asarray(indices), jnp.asarray(arr),
                               assume_unique=bool(assume_unique))


def bcoo_extract(sparr: BCOO, arr, *, assume_unique: bool | None = None) -> BCOO:
    """The BCOO array with `sparr`'s indices holding the values of `arr` there."""
    if not isinstance(sparr, BCOO):
        raise TypeError(f"First argument to bcoo_extract should be a BCOO array. "
                        f"Got type(sparr)={type(sparr)}")
    a = jnp.asarray(arr)
    if a.shape != sparr.shape:
        raise ValueError(f"shape mismatch: sparr.shape={sparr.shape} a.shape={a.shape}")
    if assume_unique is None:
        assume_unique = sparr.unique_indices
    data = _bcoo_extract(sparr.indices, a, assume_unique=assume_unique)
    return BCOO((data, sparr.indices), **sparr._info._asdict())


# ------------------------------------------------------------------ bcoo_fromdense
bcoo_fromdense_p = Primitive("bcoo_fromdense", multiple_results=True)

_TRACED_NSE_ERROR = """
The error arose for the nse argument of bcoo_fromdense. In order for
BCOO.fromdense() to be used in traced/compiled code, you must pass a concrete
value to the nse (number of stored elements) argument.
"""


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_dense - n_batch
    mask = mat != 0
    if n_dense:
        mask = mask.any(tuple(range(mask.ndim - n_dense, mask.ndim)))

    def positions(m):     # the first `nse` nonzero positions, padded with the sparse shape
        return jnp.nonzero(m, size=nse, fill_value=m.shape[:n_sparse]) if m.ndim else ()
    cols = nfold_vmap(positions, n_batch, broadcasted=False)(mask)
    if not cols:
        indices = jnp.zeros(mask.shape[:n_batch] + (nse, 0), index_dtype)
    else:
        indices = jnp.stack([c.astype(index_dtype) for c in cols], axis=-1)
    data = _bcoo_extract(indices, mat)
    # the padding slots read the element at index 0 of the clipped gather: zero them
    true_nse = mask.sum(tuple(range(n_batch, mask.ndim)))[..., None]
    slot = lax.broadcasted_iota(true_nse.dtype, (1,) * n_batch + (nse,), n_batch)
    keep = (slot < true_nse)[(n_batch + 1) * (slice(None),) + n_dense * (None,)]
    return jnp.where(keep, data, 0), indices


def _fromdense_abstract_eval(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    if n_sparse < 0 or n_batch < 0 or n_dense < 0:
        raise ValueError(f"Invalid inputs: shape={mat.shape}, n_dense={n_dense}, "
                         f"n_batch={n_batch}")
    data_shape = mat.shape[:n_batch] + (nse,) + mat.shape[n_batch + n_sparse:]
    return [ShapedArray(data_shape, mat.dtype),
            ShapedArray(mat.shape[:n_batch] + (nse, n_sparse), np.dtype(index_dtype))]


def _fromdense_jvp(primals, tangents, **params):
    (mat,), (mat_dot,) = primals, tangents
    data, indices = bcoo_fromdense_p.bind(mat, **params)
    data_dot = ad.Zero.like(data) if type(mat_dot) is ad.Zero else \
        _bcoo_extract(indices, mat_dot)
    return [data, indices], [data_dot, ad.Zero.like(indices)]


def _fromdense_transpose(ct, mat, **params):
    data_ct, _ = ct
    if type(data_ct) is ad.Zero:
        return [ad.Zero(mat.aval)]
    raise ValueError("Cannot transpose bcoo_fromdense: its indices depend on the values")


def _fromdense_batching(vals, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (bdim,) = vals, dims
    if not 0 <= bdim <= n_batch:
        raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={bdim}, n_batch={n_batch}")
    return (bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense,
                                  index_dtype=index_dtype), [bdim, bdim])


abstract_eval_rules[bcoo_fromdense_p] = _fromdense_abstract_eval
lowering_rules[bcoo_fromdense_p] = hl.lower_fun(_fromdense_impl, multiple_results=True)
numpy_rules[bcoo_fromdense_p] = hl.numpy_fun(_fromdense_impl, multiple_results=True)
jvp_rules[bcoo_fromdense_p] = _fromdense_jvp
transpose_rules[bcoo_fromdense_p] = _fromdense_transpose
batching_rules[bcoo_fromdense_p] = _fromdense_batching


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


def _concrete_nse(nse) -> int:
    if isinstance(nse, Tracer):
        try:
            return operator.index(nse.to_concrete_value())
        except Exception:
            raise ConcretizationTypeError(nse, _TRACED_NSE_ERROR) from None
    return operator.index(np.asarray(nse)) if not isinstance(nse, int) else nse


def bcoo_fromdense(mat, *, nse: int | None = None, n_batch: int = 0, n_dense: int = 0,
                   index_dtype=np.int32) -> BCOO:
    """The BCOO array of the dense `mat`, with `nse` stored elements per batch (by default
    as many as the fullest batch has nonzeros: a concrete `mat` is then needed)."""
    mat = jnp.asarray(mat)
    bufs = _bcoo_fromdense(mat, nse=_count_stored_elements(mat, n_batch, n_dense)
                           if nse is None else nse, n_batch=n_batch, n_dense=n_dense,
                           index_dtype=index_dtype)
    return BCOO(bufs, shape=mat.shape, indices_sorted=True, unique_indices=True)


def _bcoo_fromdense(mat, *, nse, n_batch: int = 0, n_dense: int = 0,
                    index_dtype=np.int32) -> tuple:
    """The buffers (data, indices) of `bcoo_fromdense` (JAX's buffer-level form; `nse`
    concrete)."""
    data, indices = bcoo_fromdense_p.bind(jnp.asarray(mat), nse=_concrete_nse(nse),
                                          n_batch=int(n_batch), n_dense=int(n_dense),
                                          index_dtype=np.dtype(index_dtype))
    return data, indices


# ------------------------------------------------------------------ bcoo_transpose
bcoo_transpose_p = Primitive("bcoo_transpose", multiple_results=True)


def _split_permutation(n_batch, n_sparse, n_dense, permutation, shape):
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError(f"transpose permutation must be a tuple/list/ndarray, got "
                        f"{type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(len(shape))):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {tuple(permutation)} for shape {tuple(shape)}.")
    batch_perm = tuple(permutation[:n_batch])
    sparse_perm = tuple(p - n_batch for p in permutation[n_batch:n_batch + n_sparse])
    dense_perm = tuple(p - n_sparse - n_batch for p in permutation[n_batch + n_sparse:])
    if n_batch and tuple(sorted(batch_perm)) != tuple(range(n_batch)):
        raise NotImplementedError(f"transpose permutation cannot permute batch axes with "
                                  f"non-batch axes; got permutation {tuple(permutation)}, "
                                  f"with n_batch={n_batch}.")
    if n_dense and tuple(sorted(dense_perm)) != tuple(range(n_dense)):
        raise NotImplementedError(f"transpose permutation cannot permute dense axes with "
                                  f"non-dense axes; got permutation {tuple(permutation)}, "
                                  f"with n_dense={n_dense}.")
    return batch_perm, sparse_perm, dense_perm


def _transpose_parts(data, indices, permutation, spinfo):
    props = _validate(data.shape, indices.shape, spinfo.shape)
    return _split_permutation(props.n_batch, props.n_sparse, props.n_dense, permutation,
                              spinfo.shape)


def _bcoo_transpose_impl(data, indices, *, permutation, spinfo):
    batch_perm, sparse_perm, dense_perm = _transpose_parts(data, indices, permutation, spinfo)
    n_batch = len(batch_perm)
    indices = indices[..., np.array(sparse_perm, int)].transpose(*batch_perm, n_batch,
                                                                 n_batch + 1)
    data = data.transpose(*batch_perm, n_batch, *(d + n_batch + 1 for d in dense_perm))
    return [data, indices]


def _bcoo_transpose_abstract_eval(data, indices, *, permutation, spinfo):
    batch_perm, _, dense_perm = _transpose_parts(data, indices, permutation, spinfo)
    n_batch = len(batch_perm)
    ind_order = [*batch_perm, n_batch, n_batch + 1]
    data_order = [*batch_perm, n_batch, *(d + n_batch + 1 for d in dense_perm)]
    return [ShapedArray(tuple(data.shape[i] for i in data_order), data.dtype),
            ShapedArray(tuple(indices.shape[i] for i in ind_order), indices.dtype)]


def _bcoo_transpose_data_cotangent(data_ct, data, indices, *, permutation, spinfo):
    ct_info = SparseInfo(tuple(spinfo.shape[p] for p in permutation))
    inverse = tuple(int(i) for i in np.argsort(permutation))
    # only the data moves back; indices of the transposed array's layout stand in for it
    dummy = jnp.zeros((1,) * (indices.ndim - 2) + tuple(indices.shape[-2:]), np.int32)
    return _bcoo_transpose(data_ct, dummy, permutation=inverse, spinfo=ct_info)[0]


def _bcoo_transpose_batching(vals, dims, *, permutation, spinfo):
    data, indices, spinfo = _move_batch_to_front(vals, dims, spinfo)
    data, indices = _bcoo_transpose(data, indices, permutation=(0, *(p + 1 for p in permutation)),
                                    spinfo=spinfo)
    out_dims = [None if d is None else 0 for d in dims]
    outs = [lax.squeeze(x, (0,)) if d is None else x for x, d in zip((data, indices), out_dims)]
    return outs, out_dims


def _bcoo_transpose(data, indices, *, permutation, spinfo):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(spinfo.shape))):
        return data, indices
    return tuple(bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo))


abstract_eval_rules[bcoo_transpose_p] = _bcoo_transpose_abstract_eval
lowering_rules[bcoo_transpose_p] = hl.lower_fun(_bcoo_transpose_impl, multiple_results=True)
numpy_rules[bcoo_transpose_p] = hl.numpy_fun(_bcoo_transpose_impl, multiple_results=True)
jvp_rules[bcoo_transpose_p] = _linear_in_data_jvp(_bcoo_transpose)
transpose_rules[bcoo_transpose_p] = _linear_in_data_transpose(_bcoo_transpose_data_cotangent)
batching_rules[bcoo_transpose_p] = _bcoo_transpose_batching


def bcoo_transpose(mat: BCOO, *, permutation) -> BCOO:
    """`mat` with its axes permuted; batch, sparse and dense axes each stay among their own."""
    data, indices = _bcoo_transpose(mat.data, mat.indices, permutation=permutation,
                                    spinfo=mat._info)
    return BCOO((data, indices), shape=tuple(mat.shape[p] for p in permutation),
                unique_indices=mat.unique_indices)


# ------------------------------------------------------------------ bcoo_dot_general
bcoo_dot_general_p = Primitive("bcoo_dot_general")


def _dot_general_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                      preferred_element_type, lhs_spinfo):
    out_aval = _dot_general_abstract_eval(get_aval(lhs_data), get_aval(lhs_indices),
                                          get_aval(rhs), dimension_numbers=dimension_numbers,
                                          preferred_element_type=preferred_element_type,
                                          lhs_spinfo=lhs_spinfo)
    n_sparse = lhs_indices.shape[-1]
    n_batch = lhs_indices.ndim - 2
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    pairs = list(zip(lhs_contract, rhs_contract))
    lhs_contract_b = tuple(l for l, r in pairs if l < n_batch)
    rhs_contract_b = tuple(r for l, r in pairs if l < n_batch)
    lhs_contract_s = tuple(l - n_batch for l, r in pairs if l >= n_batch)
    rhs_contract_s = tuple(r for l, r in pairs if l >= n_batch)

    # lhs batch dims in the order: dot batch, free batch, contracted batch
    if lhs_batch or lhs_contract_b:
        order = [*lhs_batch, *_remaining(range(n_batch), lhs_batch, lhs_contract_b),
                 *lhs_contract_b]
        lhs_data = lhs_data.transpose([*order, *range(n_batch, lhs_data.ndim)])
        lhs_indices = lhs_indices.transpose([*order, *range(n_batch, lhs_indices.ndim)])
    # lhs sparse columns: the contracted ones first
    if lhs_contract_s:
        cols = np.array([*lhs_contract_s, *_remaining(range(n_sparse), lhs_contract_s)], int)
        lhs_indices = lhs_indices[..., cols]
    rhs = rhs.transpose([*rhs_batch, *rhs_contract_b, *rhs_contract_s,
                         *_remaining(range(rhs.ndim), rhs_batch, rhs_contract_b,
                                     rhs_contract_s)])

    def one_batch(out, data, indices, rhs):
        # each stored element k multiplies the rhs slice at its contracted index, and the
        # product is added to the output at its free index
        idx = tuple(indices[..., i] for i in range(n_sparse))
        idx_rhs, idx_out = idx[:len(lhs_contract_s)], idx[len(lhs_contract_s):]
        if idx_rhs and indices.ndim > 2:
            grid = jnp.meshgrid(*(jnp.arange(n) for n in indices.shape[:-1]),
                                indexing="ij")[:indices.ndim - 2]
            idx_rhs = (*grid, *idx_rhs)
        bdims = list(range(len(lhs_contract_b) + bool(lhs_contract_s)))
        picked = rhs.at[idx_rhs].get(mode="fill", fill_value=0)
        prod = lax.dot_general(data, picked, (((), ()), (bdims, bdims)),
                               preferred_element_type=preferred_element_type)
        if idx_out:
            return out.at[idx_out].add(prod)
        return prod.sum(tuple(range(prod.ndim - out.ndim)), dtype=out.dtype)

    n_mapped = n_batch - len(lhs_contract_b)
    rhs = lax.expand_dims(rhs, tuple(range(len(rhs_batch), n_mapped)))
    out = jnp.zeros(out_aval.shape, out_aval.dtype)
    return nfold_vmap(one_batch, n_mapped)(out, lhs_data, lhs_indices, rhs)


def _dot_general_abstract_eval(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                               preferred_element_type, lhs_spinfo):
    dense_lhs = ShapedArray(lhs_spinfo.shape, lhs_data.dtype)
    shape = _dot_general_shape(dense_lhs, rhs, dimension_numbers)
    dtype = _dot_general_dtype(dense_lhs, rhs, preferred_element_type)
    (lhs_contract, _), (lhs_batch, _) = dimension_numbers
    n_batch, n_sparse, _, _ = _validate(lhs_data.shape, lhs_indices.shape, lhs_spinfo.shape)
    if lhs_batch and max(lhs_batch) >= n_batch:
        raise NotImplementedError(
            "bcoo_dot_general batch dimensions must be among the batch dimensions in the "
            f"sparse representation.\ngot lhs_batch={tuple(lhs_batch)}, n_batch={n_batch}")
    if any(d >= n_batch + n_sparse for d in lhs_contract):
        raise NotImplementedError("bcoo_dot_general: contracting over dense dimensions.")
    return ShapedArray(shape, np.dtype(dtype))


def _dot_general_transpose(ct, lhs_data, lhs_indices, rhs, *, dimension_numbers,
                           preferred_element_type, lhs_spinfo):
    if ad.is_undefined(lhs_indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_ndim = len(lhs_spinfo.shape)
    rhs_ndim = rhs.aval.ndim if ad.is_undefined(rhs) else rhs.ndim
    lhs_kept = _remaining(range(lhs_ndim), lhs_contract, lhs_batch)
    rhs_kept = _remaining(range(rhs_ndim), rhs_contract, rhs_batch)
    ans_batch, ans_lhs, ans_rhs = _ranges_like(lhs_batch, lhs_kept, rhs_kept)
    if ad.is_undefined(lhs_data):
        if type(ct) is ad.Zero:
            return [ad.Zero(lhs_data.aval), None, None]
        # the data's cotangent is the dense product ct·rhs read at the stored indices
        # (JAX computes only those entries, with bcoo_dot_general_sampled)
        dims = ((ans_rhs, rhs_kept), (ans_batch, tuple(rhs_batch)))
        lhs_contract_by_rhs = [lhs_contract[i] for i in np.argsort(rhs_contract)]
        out_axes = tuple(int(i) for i in np.argsort([*lhs_batch, *lhs_kept,
                                                     *lhs_contract_by_rhs]))
        dense = lax.transpose(lax.dot_general(ct, rhs, dims), out_axes)
        result = _bcoo_extract(lhs_indices, dense)
        if result.shape != lhs_data.aval.shape:        # data with broadcast batch dims
            summed = tuple(i for i, (a, b) in enumerate(zip(result.shape,
                                                            lhs_data.aval.shape)) if a != b)
            result = result.sum(summed, keepdims=True)
        return [result.astype(lhs_data.aval.dtype), None, None]
    if type(ct) is ad.Zero:
        return [None, None, ad.Zero(rhs.aval)]
    dims = ((lhs_kept, ans_lhs), (tuple(lhs_batch), ans_batch))
    rhs_contract_by_lhs = [rhs_contract[i] for i in np.argsort(lhs_contract)]
    out_axes = tuple(int(i) for i in np.argsort([*rhs_batch, *rhs_contract_by_lhs, *rhs_kept]))
    result = _bcoo_dot_general(lhs_data, lhs_indices, ct, lhs_spinfo=lhs_spinfo,
                               preferred_element_type=preferred_element_type,
                               dimension_numbers=dims)
    return [None, None, lax.transpose(result, out_axes).astype(rhs.aval.dtype)]


def _dot_general_batching(vals, dims, *, dimension_numbers, preferred_element_type,
                          lhs_spinfo):
    rhs, rhs_bdim = vals[2], dims[2]
    if dims[0] is None and dims[1] is None:
        data, indices = vals[:2]
        new_dims, out_dim = _dot_general_batch_dim_nums((len(lhs_spinfo.shape), rhs.ndim),
                                                        (None, rhs_bdim), dimension_numbers)
        return _bcoo_dot_general(data, indices, rhs, dimension_numbers=new_dims,
                                 preferred_element_type=preferred_element_type,
                                 lhs_spinfo=lhs_spinfo), out_dim
    data, indices, spinfo = _move_batch_to_front(
        vals[:2], dims[:2], lhs_spinfo, None if rhs_bdim is None else rhs.shape[rhs_bdim])
    new_dims, out_dim = _dot_general_batch_dim_nums((len(lhs_spinfo.shape), rhs.ndim),
                                                    (0, rhs_bdim), dimension_numbers)
    return _bcoo_dot_general(data, indices, rhs, dimension_numbers=new_dims,
                             preferred_element_type=preferred_element_type,
                             lhs_spinfo=spinfo), out_dim


abstract_eval_rules[bcoo_dot_general_p] = _dot_general_abstract_eval
lowering_rules[bcoo_dot_general_p] = hl.lower_fun(_dot_general_impl)
numpy_rules[bcoo_dot_general_p] = hl.numpy_fun(_dot_general_impl)
ad.defjvp(bcoo_dot_general_p,
          lambda t, ans, data, indices, rhs, **params: _bcoo_dot_general(t, indices, rhs,
                                                                         **params),
          None,
          lambda t, ans, data, indices, rhs, **params: _bcoo_dot_general(data, indices, t,
                                                                         **params))
transpose_rules[bcoo_dot_general_p] = _dot_general_transpose
batching_rules[bcoo_dot_general_p] = _dot_general_batching


def _index_tuple(dims) -> tuple:
    return tuple(operator.index(d) for d in dims)


def _bcoo_dot_general(lhs_data, lhs_indices, rhs, *, dimension_numbers,
                      preferred_element_type, lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
    return bcoo_dot_general_p.bind(jnp.asarray(lhs_data), jnp.asarray(lhs_indices),
                                   jnp.asarray(rhs), dimension_numbers=dims,
                                   preferred_element_type=preferred_element_type,
                                   lhs_spinfo=lhs_spinfo)


def _bcoo_rdot_general(lhs, rhs_data, rhs_indices, *, dimension_numbers,
                       preferred_element_type, rhs_spinfo):
    """dense @ sparse: the sparse-first product with the dimension numbers swapped, its
    free dims put back in the order (batch, lhs free, rhs free)."""
    swapped = tuple(d[::-1] for d in dimension_numbers)
    result = _bcoo_dot_general(rhs_data, rhs_indices, lhs, lhs_spinfo=rhs_spinfo,
                               dimension_numbers=swapped,
                               preferred_element_type=preferred_element_type)
    n_contract, n_batch = (len(d[0]) for d in dimension_numbers)
    n_swap = len(rhs_spinfo.shape) - n_contract
    perm = (*range(n_batch), *range(n_swap, result.ndim), *range(n_batch, n_swap))
    return lax.transpose(result, perm)


# ------------------------------------------------------------------ functions of others
def bcoo_multiply_dense(sp_mat: BCOO, v):
    """The data of `sp_mat * v` for a dense `v` broadcasting to `sp_mat`'s shape: each
    stored element times `v` at its index (the result keeps `sp_mat`'s indices)."""
    data, indices, shape = sp_mat.data, sp_mat.indices, sp_mat.shape
    v = jnp.asarray(v)
    if v.ndim == 0:
        return lax.mul(data, v.astype(data.dtype))
    if v.shape == shape:
        return lax.mul(data, _bcoo_extract(indices, v))
    if tuple(np.broadcast_shapes(v.shape, shape)) != tuple(shape):
        raise NotImplementedError(
            "multiplication between sparse and dense is only implemented for cases where the "
            f"output shape matches the sparse matrix shape. Got shape={shape}, v.shape={v.shape}")
    v = lax.expand_dims(v, tuple(range(len(shape) - v.ndim)))
    props = _validate(data.shape, indices.shape, shape)

    def one_batch(data, indices, v):
        ind = tuple(indices[:, i] if s != 1 else 0 for i, s in
                    zip(range(indices.shape[1]), v.shape))
        return data * v[ind]
    return nfold_vmap(one_batch, props.n_batch)(data, indices, v)


# ------------------------------------------------------------------ BCOO
@register_pytree_node_class
class BCOO(BCOOMethods, JAXSparse):
    """Experimental batched COO matrix implemented in JAX

    Args:
      (data, indices) : data and indices in batched COO format.
      shape : shape of sparse array.

    >>> BCOO((jnp.array([1., 3.]), jnp.array([[0, 0], [1, 1]])), shape=(2, 2)).todense()
    Array([[1., 0.],
           [0., 3.]], dtype=float32)
    """

    def __init__(self, args, *, shape, indices_sorted: bool = False,
                 unique_indices: bool = False):
        self.data, self.indices = map(jnp.asarray, args)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=shape)
        if not dtypes.issubdtype(self.indices.dtype, np.integer):
            raise TypeError(f"BCOO indices must be integers, got {self.indices.dtype}")
        _validate(self.data.shape, self.indices.shape, self.shape)

    @property
    def _bufs(self):
        return (self.data, self.indices)

    @property
    def nse(self) -> int:
        return self.indices.shape[-2]

    @property
    def n_batch(self) -> int:
        return self.indices.ndim - 2

    @property
    def n_sparse(self) -> int:
        return self.indices.shape[-1]

    @property
    def n_dense(self) -> int:
        return self.data.ndim - 1 - self.n_batch

    @classmethod
    def fromdense(cls, mat, *, nse: int | None = None, index_dtype=np.int32,
                  n_dense: int = 0, n_batch: int = 0) -> BCOO:
        """Create a BCOO array from a (dense) :class:`~jax.Array`."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense: int = 0,
                          n_batch: int = 0) -> BCOO:
        """Create a BCOO array from a :mod:`scipy.sparse` array (its indices not marked
        sorted or unique, as JAX's)."""
        if n_dense != 0 or n_batch != 0:
            raise NotImplementedError("BCOO.fromscipy with nonzero n_dense/n_batch")
        mat = mat.tocoo()
        indices = jnp.column_stack((mat.row, mat.col)).astype(index_dtype or jnp.int32)
        return cls((jnp.asarray(mat.data), indices), shape=mat.shape)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense: int = 0,
               n_batch: int = 0, nse: int = 0) -> BCOO:
        shape = tuple(shape)
        n_sparse = len(shape) - n_dense - n_batch
        if n_sparse < 0 or n_dense < 0 or n_batch < 0 or nse < 0:
            raise ValueError(f"Invalid inputs: shape={shape}, n_dense={n_dense}, "
                             f"n_batch={n_batch}, nse={nse}")
        batch, sparse, dense = (shape[:n_batch], shape[n_batch:n_batch + n_sparse],
                                shape[n_batch + n_sparse:])
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.full((*batch, nse, n_sparse), jnp.array(sparse, index_dtype), index_dtype)
        return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

    @classmethod
    def _eye(cls, N: int, M: int, k: int, *, dtype=None, index_dtype="int32",
             n_batch: int = 0, n_dense: int = 0) -> BCOO:
        if 2 - n_batch - n_dense < 0 or n_dense < 0 or n_batch < 0:
            raise ValueError(f"Invalid inputs: shape={(N, M)}, n_dense={n_dense}, "
                             f"n_batch={n_batch}")
        diag_size = min(N, M - k) if k > 0 else min(N + k, M)
        if diag_size <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                              n_dense=n_dense)
        if n_batch or n_dense:
            # these layouts store the zeros of each row too: the dense identity's own
            return cls.fromdense(jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch,
                                 n_dense=n_dense, index_dtype=index_dtype)
        data = jnp.ones(diag_size, dtype=dtype)
        idx = jnp.arange(diag_size, dtype=index_dtype)
        indices = jnp.stack([idx - min(k, 0), idx + max(k, 0)], axis=1).astype(index_dtype)
        return cls((data, indices), shape=(N, M), indices_sorted=True, unique_indices=True)

    def todense(self):
        """Create a dense version of the array."""
        return bcoo_todense(self)

    def transpose(self, axes=None) -> BCOO:
        """Create a new array containing the transpose."""
        perm = list(range(self.ndim)[::-1] if axes is None else axes)
        mat_t = bcoo_transpose(self, permutation=perm)
        sparse_perm = [p - self.n_batch for p in perm[self.n_batch:self.n_batch + self.n_sparse]]
        is_sorted = self.indices_sorted and tuple(sparse_perm) == tuple(range(self.n_sparse))
        return BCOO((mat_t.data, mat_t.indices), shape=mat_t.shape, indices_sorted=is_sorted,
                    unique_indices=self.unique_indices)

    def tree_flatten(self):
        return (self.data, self.indices), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        if aux_data.keys() != {"shape", "indices_sorted", "unique_indices"}:
            raise ValueError(f"BCOO.tree_unflatten: invalid aux_data={aux_data!r}")
        obj.__dict__.update(**aux_data)
        obj.shape = _unflattened_shape(aux_data["shape"], *children)
        return obj


def _unflattened_shape(shape, data, indices):
    """The shape of a BCOO rebuilt from `data` and `indices`: the recorded one, except that
    under vmap (JAX's `register_vmappable` of BCOO) the buffers lost or gained leading batch
    dims, whose sizes come from the buffers; sparse and dense dims keep the recorded sizes."""
    try:
        n_batch = len(indices.shape) - 2
        n_rest = indices.shape[-1] + len(data.shape) - 1 - n_batch
    except AttributeError:          # tree utilities that rebuild with placeholders
        return shape
    if n_batch < 0 or n_batch + n_rest == len(shape):
        return shape
    batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], indices.shape[:n_batch]))
    return batch + tuple(shape[len(shape) - n_rest:])
