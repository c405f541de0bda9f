"""What a BCOO stores, changed without changing the array it stands for: the primitives
`bcoo_sort_indices` (indices in lexicographic order) and `bcoo_sum_duplicates` (each index
once, sorted, in a chosen nse), both linear in the data, with their rules; and the functions
`bcoo_eliminate_zeros`, `bcoo_update_layout` (move dims between batch, sparse and dense) and
`_bcoo_set_nse`, as JAX's `sparse/bcoo.py`.

    >>> M = BCOO((jnp.array([1., 2., 3.]), jnp.array([[1], [0], [1]])), shape=(2,))
    >>> S = bcoo_sum_duplicates(M)
    >>> S.indices.tolist(), S.data.tolist()
    ([[0], [1]], [2.0, 4.0])
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...core.errors import ConcretizationTypeError
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...core.trace import Tracer
from ...lax import _lowering as hl
from ...numpy.setops import _unique
from ._base import SparseEfficiencyError, SparseEfficiencyWarning
from .bcoo import (BCOO, _linear_in_data_jvp, _linear_in_data_transpose, _move_batch_to_front,
                   _validate, _validate_indices)
from .batch_vmap import nfold_vmap


def _out_data_shape(data_shape, indices_shape, n_batch, nse):
    """The data shape of a result whose batch dims are the broadcast of data's and
    indices' (the data of a shared-indices batch gets each batch's own slots)."""
    batch = tuple(map(max, indices_shape[:n_batch], data_shape[:n_batch]))
    return (*batch, nse, *data_shape[n_batch + 1:])


def _sum_over_broadcast(x, target_shape):
    """`x` summed over the dims where `target_shape` has size 1 (a cotangent of an operand
    that was broadcast along a batch dim)."""
    dims = tuple(i for i, (a, b) in enumerate(zip(x.shape, target_shape)) if a != b)
    return x.sum(dims, keepdims=True) if dims else x


# ------------------------------------------------------------------ bcoo_sort_indices
bcoo_sort_indices_p = Primitive("bcoo_sort_indices", multiple_results=True)


def _sort_unbatched(indices):
    """The rows of one batch's (nse, n_sparse) indices in lexicographic order (stable), and
    the permutation that sorts them."""
    nse, n = indices.shape
    *cols, perm = lax.sort((*(indices[:, i] for i in range(n)), lax.iota(indices.dtype, nse)),
                           num_keys=n)
    return jnp.column_stack(cols), perm


def _sort_permutation(indices, n_batch):
    return nfold_vmap(_sort_unbatched, n_batch, broadcasted=False)(indices)


def _permute(data, perm, n_batch):
    return nfold_vmap(lambda d, p: d[p], n_batch)(data, perm)


def _sort_impl(data, indices, *, spinfo):
    props = _validate(data.shape, indices.shape, spinfo.shape)
    if props.n_sparse == 0:
        return [data, indices]
    indices, perm = _sort_permutation(indices, props.n_batch)
    return [_permute(data, perm, props.n_batch), indices]


def _sort_abstract_eval(data, indices, *, spinfo):
    props = _validate(data.shape, indices.shape, spinfo.shape)
    if props.n_sparse == 0:
        return [data, indices]
    shape = _out_data_shape(data.shape, indices.shape, props.n_batch, props.nse)
    return [ShapedArray(shape, data.dtype, weak_type=data.weak_type), indices]


def _sort_data_cotangent(data_ct, data, indices, *, spinfo):
    props = _validate(data.aval.shape, indices.shape, spinfo.shape)
    if props.n_sparse == 0:
        return data_ct
    _, perm = _sort_permutation(indices, props.n_batch)
    # slot k of the output came from slot perm[k]: send each cotangent back there
    back = nfold_vmap(lambda c, p: jnp.zeros_like(c).at[p].set(c), props.n_batch)(data_ct,
                                                                                   perm)
    return _sum_over_broadcast(back, data.aval.shape)


def _sort_batching(vals, dims, *, spinfo):
    data, indices, spinfo = _move_batch_to_front(vals, dims, spinfo)
    data_out, indices_out = bcoo_sort_indices_p.bind(data, indices, spinfo=spinfo)
    if dims[1] is None:      # unbatched indices stay unbatched (their sort is shared)
        return [data_out, indices_out[0]], [0, None]
    return [data_out, indices_out], [0, 0]


abstract_eval_rules[bcoo_sort_indices_p] = _sort_abstract_eval
lowering_rules[bcoo_sort_indices_p] = hl.lower_fun(_sort_impl, multiple_results=True)
numpy_rules[bcoo_sort_indices_p] = hl.numpy_fun(_sort_impl, multiple_results=True)
# the permutation depends on the indices alone: the tangent moves as the data does
jvp_rules[bcoo_sort_indices_p] = _linear_in_data_jvp(bcoo_sort_indices_p.bind)
transpose_rules[bcoo_sort_indices_p] = _linear_in_data_transpose(_sort_data_cotangent)
batching_rules[bcoo_sort_indices_p] = _sort_batching


def bcoo_sort_indices(mat: BCOO) -> BCOO:
    """`mat` with its indices in lexicographic order (duplicates kept).

    >>> bcoo_sort_indices(BCOO((jnp.array([1., 2.]), jnp.array([[1], [0]])), shape=(2,))).data
    Array([2., 1.], dtype=float32)
    """
    data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=mat._info)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
                unique_indices=mat.unique_indices)


# ------------------------------------------------------------------ bcoo_sum_duplicates
bcoo_sum_duplicates_p = Primitive("bcoo_sum_duplicates", multiple_results=True)

_NSE_NEEDED = ("bcoo_sum_duplicates: nse must be specified when using the function within "
               "jit, vmap, and other transformations requiring abstract evaluation.")


def _unique_unbatched(indices, *, shape):
    """One batch's distinct indices, sorted and padded (with the sparse shape) to its nse;
    the slot of the result each input element goes to; how many are real."""
    nse, n_sparse = indices.shape
    if n_sparse == 0:
        return jnp.zeros((1, 0), indices.dtype), jnp.zeros(1, np.int32), 1
    fill = jnp.array(shape[:n_sparse], indices.dtype)[None, :]
    # every padding index becomes the same one, so it makes (at most) one slot
    indices = jnp.where((indices >= fill).any(-1, keepdims=True), fill, indices)
    out, inverse, true_size = _unique(indices, 0, return_inverse=True, size=nse,
                                      fill_value=fill, return_true_size=True)
    return out, inverse.ravel(), true_size - (indices == fill).any().astype(true_size.dtype)


def _unique_indices(indices, shape):
    n_batch = _validate_indices(indices.shape, shape).n_batch
    return nfold_vmap(lambda i: _unique_unbatched(i, shape=shape[n_batch:]), n_batch,
                       broadcasted=False)(indices)


def _adjust_indices_nse(indices, *, nse, shape):
    """`indices` cut or padded (with the sparse shape, an out-of-range index) to `nse`."""
    props = _validate_indices(indices.shape, shape)
    if nse <= props.nse:
        return indices[..., :nse, :]
    fill = lax.broadcast_in_dim(
        jnp.array(shape[props.n_batch:props.n_batch + props.n_sparse], indices.dtype),
        (*indices.shape[:-2], nse - props.nse, indices.shape[-1]), (indices.ndim - 1,))
    return lax.concatenate([indices, fill], indices.ndim - 2)


def _scatter_to_slots(data, mapping, n_batch, out_shape):
    """Each element of `data` added into its output slot (slots past nse are dropped)."""
    out = jnp.zeros(out_shape, data.dtype)
    if not out.size:     # a scatter into nothing (JAX guards this case too)
        return out
    return nfold_vmap(lambda o, m, d: o.at[m].add(d, mode="drop"), n_batch)(out, mapping,
                                                                            data)


def _sum_duplicates_impl(data, indices, *, spinfo, nse):
    props = _validate(data.shape, indices.shape, spinfo.shape)
    indices_out, mapping, _ = _unique_indices(indices, spinfo.shape)
    indices_out = _adjust_indices_nse(indices_out, nse=nse, shape=spinfo.shape)
    if props.n_sparse == 0:
        data = data.sum(props.n_batch, keepdims=True, dtype=data.dtype)
    out_shape = _out_data_shape(data.shape, indices.shape, props.n_batch, nse)
    return [_scatter_to_slots(data, mapping, props.n_batch, out_shape), indices_out]


def _sum_duplicates_abstract_eval(data, indices, *, spinfo, nse):
    if nse is None:
        raise ValueError(_NSE_NEEDED)
    props = _validate(data.shape, indices.shape, spinfo.shape)
    indices_out = ShapedArray((*indices.shape[:props.n_batch], nse, props.n_sparse),
                              indices.dtype, weak_type=indices.weak_type)
    data_out = ShapedArray(_out_data_shape(data.shape, indices.shape, props.n_batch, nse),
                           data.dtype, weak_type=data.weak_type)
    return [data_out, indices_out]


def _sum_duplicates_data_cotangent(data_ct, data, indices, *, spinfo, nse):
    props = _validate(data.aval.shape, indices.shape, spinfo.shape)
    data_ct = jnp.asarray(data_ct)
    if nse == 0:        # no slot kept: every input element was dropped (and there is no
        return jnp.zeros(data.aval.shape, data.aval.dtype)     # slot to gather from)
    _, mapping, _ = _unique_indices(indices, spinfo.shape)
    if props.n_sparse == 0:       # every element went to slot 0 (when there is one)
        mapping = jnp.zeros(indices.shape[:-1], mapping.dtype)
    # each input element reads the cotangent of the slot it was added to (zero if dropped)
    back = nfold_vmap(lambda c, m: c.at[m].get(mode="fill", fill_value=0),
                       props.n_batch)(data_ct, mapping)
    return _sum_over_broadcast(back, data.aval.shape).astype(data.aval.dtype)


def _sum_duplicates_batching(vals, dims, *, spinfo, nse):
    data, indices, spinfo = _move_batch_to_front(vals, dims, spinfo)
    data_out, indices_out = bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse)
    if dims[1] is None:
        return [data_out, lax.squeeze(indices_out, (0,))], [0, None]
    return [data_out, indices_out], [0, 0]


abstract_eval_rules[bcoo_sum_duplicates_p] = _sum_duplicates_abstract_eval
lowering_rules[bcoo_sum_duplicates_p] = hl.lower_fun(_sum_duplicates_impl,
                                                     multiple_results=True)
numpy_rules[bcoo_sum_duplicates_p] = hl.numpy_fun(_sum_duplicates_impl, multiple_results=True)
# summing into slots chosen by the indices is linear in the data
jvp_rules[bcoo_sum_duplicates_p] = _linear_in_data_jvp(bcoo_sum_duplicates_p.bind)
transpose_rules[bcoo_sum_duplicates_p] = _linear_in_data_transpose(
    _sum_duplicates_data_cotangent)
batching_rules[bcoo_sum_duplicates_p] = _sum_duplicates_batching


def _needed_nse(indices, spinfo) -> int:
    """The nse that holds every distinct index of the fullest batch: needs concrete
    indices (JAX's error otherwise)."""
    if isinstance(indices, Tracer):
        try:
            indices = indices.to_concrete_value()
        except Exception:
            indices = None
        if indices is None:
            raise ValueError(_NSE_NEEDED)
    props = _validate_indices(indices.shape, spinfo.shape)
    if props.n_sparse == 0:
        return 1
    counts = _unique_indices(jnp.asarray(indices), spinfo.shape)[2]
    return int(np.max(np.asarray(counts), initial=0))


def _bcoo_sum_duplicates(data, indices, *, spinfo, nse):
    if nse is None:
        nse = _needed_nse(indices, spinfo)
    else:
        nse = _concrete_int(nse, "nse argument of bcoo_sum_duplicates.")
    return bcoo_sum_duplicates_p.bind(jnp.asarray(data), jnp.asarray(indices), spinfo=spinfo,
                                      nse=nse)


def _concrete_int(x, context: str) -> int:
    if isinstance(x, Tracer):
        try:
            return operator.index(x.to_concrete_value())
        except Exception:
            raise ConcretizationTypeError(x, f"The error arose for the {context}") from None
    return operator.index(x)


def bcoo_sum_duplicates(mat: BCOO, nse: int | None = None) -> BCOO:
    """Sums duplicate indices within a BCOO array, returning an array with sorted indices.
    `nse` (needed under jit and vmap) sets the result's number of stored elements: more pads,
    fewer drops the last.

    >>> M = BCOO((jnp.array([1., 2.]), jnp.array([[1], [1]])), shape=(3,))
    >>> bcoo_sum_duplicates(M, nse=2).indices.tolist()
    [[1], [3]]
    """
    data, indices = _bcoo_sum_duplicates(mat.data, mat.indices, spinfo=mat._info, nse=nse)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


# ------------------------------------------------------------------ functions of others
def bcoo_eliminate_zeros(mat: BCOO, nse: int | None = None) -> BCOO:
    """`mat` without its explicitly stored zeros (their slots become padding), duplicates
    summed (as `bcoo_sum_duplicates`)."""
    data, indices, shape = mat.data, mat.indices, mat.shape
    props = _validate(data.shape, indices.shape, shape)
    zero = (data == 0).all(tuple(range(props.n_batch + 1, data.ndim)))
    shared = tuple(i for i, s in enumerate(indices.shape[:props.n_batch]) if s == 1)
    zero = zero.all(shared, keepdims=True)       # shared indices: a zero in every batch
    fill = jnp.array(shape[props.n_batch:props.n_batch + props.n_sparse], indices.dtype)
    indices = nfold_vmap(lambda i, z: jnp.where(z[:, None], fill[None, :], i),
                          props.n_batch)(indices, zero)
    return bcoo_sum_duplicates(BCOO((data, indices), shape=shape), nse=nse)


def _bcoo_set_nse(mat: BCOO, nse: int) -> BCOO:
    """`mat` with `nse` slots: the last cut off (their data lost), or padding added."""
    nse = operator.index(nse)
    if mat.nse == nse:
        return mat
    batch = (slice(None),) * mat.n_batch
    if nse <= mat.nse:
        data, indices = mat.data[(*batch, slice(nse))], mat.indices[..., :nse, :]
    else:
        data = jnp.zeros((*mat.data.shape[:mat.n_batch], nse,
                          *mat.data.shape[mat.n_batch + 1:]), mat.dtype)
        data = data.at[(*batch, slice(mat.nse))].set(mat.data)
        indices = _adjust_indices_nse(mat.indices, nse=nse, shape=mat.shape)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)


def _inefficient(on_inefficient, msg):
    if on_inefficient == "error":
        raise SparseEfficiencyError(msg + " To disable this error, set the on_inefficient "
                                    "argument of bcoo_update_layout to 'warn' or None.")
    if on_inefficient == "warn":
        warnings.warn(msg + " To disable this warning, set the on_inefficient argument of "
                      "bcoo_update_layout to None.", category=SparseEfficiencyWarning,
                      stacklevel=3)


def _dense_to_sparse(data, indices, n_batch, n):
    """The leading `n` dense dims of each stored element become sparse dims: an element
    per position of them, its index the element's followed by the position's."""
    def one(d, i):
        new_d = d.reshape(math.prod(d.shape[:n]), *d.shape[n:])
        grid = jnp.meshgrid(*(jnp.arange(s, dtype=i.dtype) for s in d.shape[:n]),
                            indexing="ij")
        return new_d, jnp.column_stack([jnp.broadcast_to(i, (new_d.shape[0], i.size)),
                                        *map(jnp.ravel, grid)])
    data, indices = nfold_vmap(one, n_batch + 1)(data, indices)
    merge = lambda x: x.reshape(*x.shape[:n_batch], math.prod(x.shape[n_batch:n_batch + 2]),
                                *x.shape[n_batch + 2:])
    return merge(data), merge(indices)


def _batch_to_sparse(data, indices, n_batch, n):
    """The last `n` batch dims become leading sparse dims: their elements join into one
    list, each index prefixed by its batch position."""
    def one(d, i):
        nse = i.shape[-2]
        new_d = d.reshape(math.prod(d.shape[:n + 1]), *d.shape[n + 1:])
        grid = jnp.meshgrid(*(jnp.arange(s, dtype=i.dtype) for s in (*i.shape[:n], nse)),
                            indexing="ij")
        new_i = i.reshape(math.prod(i.shape[:n + 1]), *i.shape[n + 1:])
        return new_d, jnp.column_stack((*(g.ravel() for g in grid[:-1]), new_i))
    return nfold_vmap(one, n_batch)(data, indices)


def _sparse_to_dense(data, indices, n_batch, shape, n_dense, n):
    """The last `n` sparse dims become leading dense dims: each element's data is placed in
    a block of them at its index there."""
    def one(d, i):
        return jnp.zeros(shape[len(shape) - n_dense:], d.dtype).at[tuple(i[-n:])].set(d), \
            i[:-n]
    return nfold_vmap(one, n_batch + 1)(data, indices)


def _sparse_to_batch(data, indices, n_batch, shape, n_dense, n):
    """The leading `n` sparse dims become trailing batch dims: each element is placed in
    its batch there (the others hold zeros at its slot)."""
    def one(d, i):
        nse = i.shape[-2]
        idx = tuple(i[:, j] for j in range(n)) + (jnp.arange(nse),)
        new_i = jnp.broadcast_to(i[:, n:], (*shape[n_batch:n_batch + n], nse, i.shape[-1] - n))
        new_d = jnp.zeros((*shape[n_batch:n_batch + n], nse, *d.shape[d.ndim - n_dense:]),
                          d.dtype).at[idx].set(d)
        return new_d, new_i
    return nfold_vmap(one, n_batch)(data, indices)


def bcoo_update_layout(mat: BCOO, *, n_batch: int | None = None, n_dense: int | None = None,
                       on_inefficient: str | None = "error") -> BCOO:
    """Update the storage layout (i.e. n_batch & n_dense) of a BCOO matrix. More batch or
    dense dims than sizes 0 or 1 store many zeros: `on_inefficient` ('error', 'warn' or None)
    says what to do then.

    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]), n_batch=1)
    >>> bcoo_update_layout(M, n_batch=0).indices.tolist()
    [[0, 1], [1, 0]]
    """
    n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
    n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
    if (n_batch, n_dense) == (mat.n_batch, mat.n_dense):
        return mat
    n_sparse = mat.ndim - n_batch - n_dense
    if on_inefficient not in ("error", "warn", None):
        raise ValueError("on_inefficent={on_inefficient!r}; expected one of "
                         "['error', 'warn', None].")    # (JAX's words, unformatted)
    if n_batch < 0:
        raise ValueError(f"n_batch must be non-negative; got {n_batch}")
    if n_dense < 0:
        raise ValueError(f"n_dense must be non-negative; got {n_dense}")
    if n_sparse < 0:
        raise ValueError(f"sum of n_batch={n_batch} and n_dense={n_dense} "
                         f"cannot be larger than mat.ndim={mat.ndim}.")
    shape = mat.shape
    if n_dense > mat.n_dense and any(d > 1 for d in shape[-n_dense:mat.ndim - mat.n_dense]):
        _inefficient(on_inefficient, f"For matrix of shape {shape}, increasing n_dense from "
                                     f"{mat.n_dense} to {n_dense} results in inefficient storage.")
    if n_batch > mat.n_batch and any(d > 1 for d in shape[mat.n_batch:n_batch]):
        _inefficient(on_inefficient, f"For matrix of shape {shape}, increasing n_batch from "
                                     f"{mat.n_batch} to {n_batch} results in inefficient storage.")
    data, indices = mat.data, mat.indices
    cur_batch, cur_dense = mat.n_batch, mat.n_dense
    if n_dense < cur_dense:
        data, indices = _dense_to_sparse(data, indices, cur_batch, cur_dense - n_dense)
        cur_dense = n_dense
    if n_batch < cur_batch:
        data, indices = _batch_to_sparse(data, indices, n_batch, cur_batch - n_batch)
        cur_batch = n_batch
    if n_dense > cur_dense:
        data, indices = _sparse_to_dense(data, indices, cur_batch, shape, n_dense,
                                         n_dense - cur_dense)
    if n_batch > cur_batch:
        data, indices = _sparse_to_batch(data, indices, cur_batch, shape, n_dense,
                                         n_batch - cur_batch)
    return BCOO((data, indices), shape=shape)
