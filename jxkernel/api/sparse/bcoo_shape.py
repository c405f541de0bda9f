"""lax's shape operations on BCOO arrays (JAX's `bcoo_slice`, `bcoo_dynamic_slice`,
`bcoo_squeeze`, `bcoo_broadcast_in_dim`, `bcoo_concatenate`, `bcoo_rev`, `bcoo_reshape`,
`bcoo_reduce_sum`, and `bcoo_gather`, integer-array indexing): functions of the
BCOO primitives and jnp, not primitives, as JAX's are. A batch or dense dim is the buffers'
own dim; a sparse dim lives in the index column, so slicing it re-indexes (elements that
fall outside become padding) and summing duplicates shrinks nse to the slice's size.

    >>> M = BCOO.fromdense(jnp.array([[0., 1., 0.], [2., 0., 3.]]))
    >>> bcoo_slice(M, start_indices=(1, 1), limit_indices=(2, 3)).todense()
    Array([[0., 3.]], dtype=float32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapeDtypeStruct
from ...lax.shapes import canonicalize_axis
from ...lax.slicing import GatherScatterMode
from ...transforms.batching import vmap
from ...transforms.make_jaxpr import eval_shape
from ._base import SparseInfo
from .bcoo import BCOO, _split_permutation, _validate, bcoo_transpose
from .bcoo_layout import _bcoo_set_nse, _bcoo_sum_duplicates, bcoo_update_layout


def _split(seq, n_batch, n_sparse):
    seq = list(seq)
    return seq[:n_batch], seq[n_batch:n_batch + n_sparse], seq[n_batch + n_sparse:]


def _dropping_outside(mat, new_indices, new_data, keep, new_shape, out_of_range):
    """The elements whose index is outside the slice (`keep` false) made padding: index
    `out_of_range`, data zero; then at most as many slots as the slice has positions."""
    new_indices = jnp.where(keep, new_indices, out_of_range)
    keep_data = lax.expand_dims(keep[..., 0], tuple(range(mat.n_batch + 1,
                                                          mat.n_batch + 1 + mat.n_dense)))
    new_data = jnp.where(keep_data, new_data, 0)
    size = math.prod(new_shape[mat.n_batch:mat.n_batch + mat.n_sparse])
    if mat.nse > size:
        new_data, new_indices = _bcoo_sum_duplicates(new_data, new_indices,
                                                     spinfo=SparseInfo(shape=new_shape),
                                                     nse=size)
    return new_data, new_indices


def bcoo_slice(mat: BCOO, *, start_indices, limit_indices, strides=None) -> BCOO:
    """Sparse implementation of :func:`jax.lax.slice`.

    >>> M = BCOO.fromdense(jnp.arange(6.).reshape(2, 3))
    >>> bcoo_slice(M, start_indices=(0, 0), limit_indices=(2, 3), strides=(1, 2)).todense()
    Array([[0., 2.],
           [3., 5.]], dtype=float32)
    """
    if not isinstance(mat, BCOO):
        raise TypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
    start = [operator.index(i) for i in start_indices]
    limit = [operator.index(i) for i in limit_indices]
    strides = [1] * mat.ndim if strides is None else [operator.index(i) for i in strides]
    if len(start) != mat.ndim or len(limit) != mat.ndim:
        raise ValueError(f"bcoo_slice: indices must have size mat.ndim={mat.ndim}")
    if len(strides) != mat.ndim:
        raise ValueError(f"len(strides) = {len(strides)}; expected {mat.ndim}")
    if any(s <= 0 for s in strides):
        raise ValueError(f"strides must be a sequence of positive integers; got {strides}")
    if not all(0 <= a <= b <= n for a, b, n in zip(start, limit, mat.shape)):
        raise ValueError(f"bcoo_slice: invalid indices. Got start_indices={start}, "
                         f"limit_indices={limit} and shape={mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    start_b, start_s, start_d = _split(start, nb, ns)
    end_b, end_s, end_d = _split(limit, nb, ns)
    step_b, step_s, step_d = _split(strides, nb, ns)
    # a broadcast (size-1) batch dim of a buffer is kept whole: it stands for every index
    cut = lambda buf, i, a, b, s: slice(None) if buf.shape[i] != mat.shape[i] else slice(a, b, s)
    data_idx = [cut(mat.data, i, *t) for i, t in enumerate(zip(start_b, end_b, step_b))]
    ind_idx = [cut(mat.indices, i, *t) for i, t in enumerate(zip(start_b, end_b, step_b))]
    data_idx += [slice(None)] + [slice(*t) for t in zip(start_d, end_d, step_d)]
    new_data, new_indices = mat.data[tuple(data_idx)], mat.indices[tuple(ind_idx)]
    new_shape = tuple((b - a + s - 1) // s for a, b, s in zip(start, limit, strides))
    if ns:
        as_row = lambda v: jnp.expand_dims(jnp.array(v, new_indices.dtype), tuple(range(nb + 1)))
        starts, ends, steps = as_row(start_s), as_row(end_s), as_row(step_s)
        keep = jnp.all((new_indices >= starts) & (new_indices < ends) &
                       ((new_indices - starts) % steps == 0), axis=-1, keepdims=True)
        new_data, new_indices = _dropping_outside(
            mat, (new_indices - starts + steps - 1) // steps, new_data, keep, new_shape,
            (ends - starts + steps - 1) // steps)
    return BCOO((new_data, new_indices), shape=new_shape)


def bcoo_dynamic_slice(mat: BCOO, start_indices, slice_sizes) -> BCOO:
    """Sparse implementation of :func:`jax.lax.dynamic_slice` (starts may be traced; they are
    clamped into range as lax's are).

    >>> M = BCOO.fromdense(jnp.arange(6.).reshape(2, 3))
    >>> bcoo_dynamic_slice(M, (jnp.array(1), 1), (1, 2)).todense()
    Array([[4., 5.]], dtype=float32)
    """
    slice_sizes = tuple(operator.index(i) for i in slice_sizes)
    # lax.dynamic_slice's own checks (and words), on the shapes alone, as JAX validates
    eval_shape(lambda x, *s: lax.dynamic_slice(x, s, slice_sizes),
               ShapeDtypeStruct(mat.shape, mat.dtype), *start_indices)
    if not isinstance(mat, BCOO):
        raise TypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
    start_indices = tuple(jnp.asarray(i) for i in start_indices)
    nb, ns = mat.n_batch, mat.n_sparse
    start_b, start_s, start_d = _split(start_indices, nb, ns)
    size_b, size_s, size_d = _split(slice_sizes, nb, ns)
    zero = jnp.zeros((), start_indices[0].dtype if start_indices else np.int32)
    data_start, data_sizes, ind_start, ind_sizes = [], [], [], []
    for i, (a, n) in enumerate(zip(start_b, size_b)):
        data_whole = mat.data.shape[i] != mat.shape[i]      # broadcast: keep it whole
        ind_whole = mat.indices.shape[i] != mat.shape[i]
        data_start.append(zero if data_whole else a)
        data_sizes.append(1 if data_whole else n)
        ind_start.append(zero if ind_whole else a)
        ind_sizes.append(1 if ind_whole else n)
    data_start += [zero, *start_d]
    data_sizes += [mat.nse, *size_d]
    ind_start += [zero, zero]
    ind_sizes += [mat.nse, ns]
    new_data = lax.dynamic_slice(mat.data, data_start, data_sizes)
    new_indices = lax.dynamic_slice(mat.indices, ind_start, ind_sizes)
    if ns:
        dt = new_indices.dtype
        starts = jnp.array([jnp.asarray(a).astype(dt) for a in start_s], dt) if start_s else \
            jnp.zeros(0, dt)
        sizes = jnp.array(size_s, dt)
        sparse_shape = jnp.array(mat.shape[nb:nb + ns], dt)
        starts = jnp.where(starts < 0, starts + sparse_shape, starts)
        starts = jnp.clip(starts, 0, sparse_shape - sizes)     # lax.dynamic_slice's clamp
        starts, sizes = (jnp.expand_dims(x, tuple(range(nb + 1))) for x in (starts, sizes))
        keep = jnp.all((new_indices >= starts) & (new_indices < starts + sizes), -1,
                       keepdims=True)
        new_data, new_indices = _dropping_outside(mat, new_indices - starts, new_data, keep,
                                                  slice_sizes, sizes)
    return BCOO((new_data, new_indices), shape=slice_sizes)


def bcoo_squeeze(arr: BCOO, *, dimensions) -> BCOO:
    """Sparse implementation of :func:`jax.lax.squeeze`: size-1 dims removed.

    >>> bcoo_squeeze(BCOO.fromdense(jnp.array([[0., 2.]])), dimensions=(0,)).todense()
    Array([0., 2.], dtype=float32)
    """
    dimensions = tuple(canonicalize_axis(d, arr.ndim) for d in dimensions)
    if any(arr.shape[d] != 1 for d in dimensions):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={arr.shape} and dimensions={dimensions}")
    nb, ns = arr.n_batch, arr.n_sparse
    batch_dims = tuple(d for d in dimensions if d < nb)
    kept_sparse = np.array([i for i in range(ns) if i + nb not in dimensions], int)
    dense_dims = tuple(d - ns + 1 for d in dimensions if d >= nb + ns)
    data = lax.squeeze(arr.data, batch_dims + dense_dims)
    indices = lax.squeeze(arr.indices[..., kept_sparse], batch_dims)
    shape = tuple(s for i, s in enumerate(arr.shape) if i not in dimensions)
    return BCOO((data, indices), shape=shape, indices_sorted=arr.indices_sorted,
                unique_indices=arr.unique_indices)


def bcoo_rev(operand: BCOO, dimensions) -> BCOO:
    """Sparse implementation of :func:`jax.lax.rev`: a reversed sparse dim maps index i to
    n - 1 - i (padding stays out of range).

    >>> bcoo_rev(BCOO.fromdense(jnp.array([1., 0., 2.])), (0,)).todense()
    Array([2., 0., 1.], dtype=float32)
    """
    dimensions = tuple(dimensions)
    eval_shape(lambda x: lax.rev(x, dimensions), ShapeDtypeStruct(operand.shape,
                                                                   operand.dtype))
    nb, ns = operand.n_batch, operand.n_sparse
    batch = [d for d in dimensions if d < nb]
    sparse = [d for d in dimensions if nb <= d < nb + ns]
    dense = [d for d in dimensions if d >= nb + ns]
    data, indices = operand.data, operand.indices
    if batch:
        indices = lax.rev(indices, batch)
    if batch or dense:
        data = lax.rev(data, batch + [d + 1 - ns for d in dense])
    if sparse:
        shape = jnp.array(operand.shape[nb:nb + ns], indices.dtype)
        cols = jnp.array([d - nb for d in sparse])
        indices = indices.at[..., cols].mul(-1)
        indices = indices.at[..., cols].add(shape[cols] - 1)
        indices = jnp.where(indices < 0, shape, indices)
    return BCOO((data, indices), shape=operand.shape)


def bcoo_broadcast_in_dim(mat: BCOO, *, shape, broadcast_dimensions, sharding=None) -> BCOO:
    """Expand the size and rank of a BCOO array by duplicating the data (a BCOO
    :func:`jax.lax.broadcast_in_dim`): new dims before the sparse ones are batch dims.

    >>> M = BCOO.fromdense(jnp.array([0., 2.]))
    >>> bcoo_broadcast_in_dim(M, shape=(3, 2), broadcast_dimensions=(1,)).n_batch
    1
    """
    shape = tuple(int(s) for s in shape)
    data, indices = _broadcast_in_dim(mat.data, mat.indices, spinfo=mat._info, shape=shape,
                                      broadcast_dimensions=tuple(broadcast_dimensions))
    return BCOO((data, indices), shape=shape)


def _broadcast_in_dim(data, indices, *, spinfo, shape, broadcast_dimensions):
    if len(spinfo.shape) != len(broadcast_dimensions):
        raise ValueError(f"spinfo.shape={spinfo.shape} and broadcast_dimensions="
                         f"{broadcast_dimensions} must have the same length")
    props = _validate(data.shape, indices.shape, spinfo.shape)
    batch_dims, sparse_dims, dense_dims = _split(broadcast_dimensions, props.n_batch,
                                                 props.n_sparse)
    if max(batch_dims, default=0) > min(sparse_dims, default=len(shape)):
        raise ValueError("Cannot mix batch and sparse dimensions during broadcast_in_dim")
    if max(sparse_dims, default=0) > min(dense_dims, default=len(shape)):
        raise ValueError("Cannot mix sparse and dense dimensions during broadcast_in_dim")
    # every new dim before a sparse or dense one is a batch dim
    new_n_batch = min(broadcast_dimensions[props.n_batch:], default=len(shape))
    new_n_dense = props.n_dense and len(shape) - min(broadcast_dimensions[-props.n_dense:])
    new_n_sparse = len(shape) - new_n_batch - new_n_dense
    if math.prod(spinfo.shape[props.n_batch:props.n_batch + props.n_sparse]) != \
            math.prod(shape[new_n_batch:new_n_batch + new_n_sparse]):
        raise NotImplementedError("Adding sparse dimensions with lengths != 1")
    if (new_n_batch, new_n_dense) != (props.n_batch, props.n_dense):
        data = lax.broadcast_in_dim(
            data, (*shape[:new_n_batch], props.nse, *shape[new_n_batch + new_n_sparse:]),
            (*batch_dims, new_n_batch, *(b + 1 - new_n_sparse for b in dense_dims)))
        indices = lax.broadcast_in_dim(
            indices, (*shape[:new_n_batch], props.nse, props.n_sparse),
            (*batch_dims, new_n_batch, new_n_batch + 1))
    if new_n_sparse != props.n_sparse:     # new size-1 sparse dims: index 0 there
        cols = np.array(sparse_dims, int) - new_n_batch
        indices = jnp.zeros((*shape[:new_n_batch], props.nse, new_n_sparse),
                            indices.dtype).at[..., cols].set(indices)
    return data, indices


def _align_one_batch_dim(operands):
    """The common case of `op[None]` (one new batch dim) beside arrays without: JAX moves
    whichever side has size 1 there to the other's layout."""
    n_batches = {op.n_batch for op in operands}
    if len(n_batches) == 1 or max(n_batches) != 1:
        return operands
    if all(op.shape[0] == 1 for op in operands if op.n_batch == 0):
        return [bcoo_update_layout(op, n_batch=1) if op.n_batch == 0 else op for op in operands]
    if all(op.shape[0] == 1 for op in operands if op.n_batch == 1):
        return [bcoo_update_layout(op, n_batch=0) if op.n_batch == 1 else op for op in operands]
    return operands


def bcoo_concatenate(operands, *, dimension: int) -> BCOO:
    """Sparse implementation of :func:`jax.lax.concatenate` along a batch or sparse dim of
    arrays of one layout.

    >>> M = BCOO.fromdense(jnp.array([0., 2.]))
    >>> bcoo_concatenate([M, M], dimension=0).todense()
    Array([0., 2., 0., 2.], dtype=float32)
    """
    dimension = operator.index(dimension)
    if not all(isinstance(op, BCOO) for op in operands):
        raise ValueError("bcoo_concatenate: expected operands to be a sequence of BCOO "
                         f"arrays. Got {operands}")
    out_shape = eval_shape(lambda *xs: lax.concatenate(xs, dimension),
                           *(ShapeDtypeStruct(op.shape, op.dtype) for op in operands)).shape
    if len({op.n_dense for op in operands}) > 1:
        raise ValueError("bcoo_concatenate requires inputs to have matching nse dimensions.")
    operands = _align_one_batch_dim(list(operands))
    if len({op.n_batch for op in operands}) != 1:
        raise ValueError("bcoo_concatenate requires inputs to have matching batch dimensions.")
    n_batch, n_sparse = operands[0].n_batch, operands[0].n_sparse
    other = lambda s: s[:dimension] + s[dimension + 1:] if dimension < n_batch else s
    index_batches = {other(op.indices.shape[:n_batch]) for op in operands}
    data_batches = {other(op.data.shape[:n_batch]) for op in operands}
    if not len(index_batches) == len(data_batches) == 1:
        raise NotImplementedError("concatenation of arrays with broadcasted batch indices")
    if dimension < n_batch:            # batch axes: the buffers side by side, one nse
        nse = max(op.nse for op in operands)
        operands = [_bcoo_set_nse(op, nse) for op in operands]
        indices = lax.concatenate([op.indices for op in operands], dimension)
        data = lax.concatenate([op.data for op in operands], dimension)
    elif dimension < n_batch + n_sparse:     # sparse axes: elements joined, indices offset
        offsets = np.cumsum([0] + [op.shape[dimension] for op in operands[:-1]],
                            dtype=operands[0].indices.dtype)
        data = lax.concatenate([op.data for op in operands], n_batch)
        indices = lax.concatenate([op.indices.at[..., dimension - n_batch].add(off)
                                   for op, off in zip(operands, offsets)], n_batch)
    else:
        raise NotImplementedError("Concatenation along dense dimensions.")
    return BCOO((data, indices), shape=out_shape)


def bcoo_reduce_sum(mat: BCOO, *, axes) -> BCOO:
    """`mat` summed over `axes`: a summed sparse axis drops its index column (the sum is the
    scatter's), a summed batch axis joins the stored elements, a dense one sums the data."""
    data, indices, shape = mat.data, mat.indices, mat.shape
    n_batch, n_sparse, _, nse = _validate(data.shape, indices.shape, shape)
    axes = sorted({operator.index(a) % len(shape) if len(shape) else a for a in axes})
    dense_axes = tuple(a - n_sparse + 1 for a in axes if a >= n_batch + n_sparse)
    data = data.sum(dense_axes)
    if n_sparse:        # padding entries must not count once their index is gone
        limit = jnp.expand_dims(jnp.array(shape[n_batch:n_batch + n_sparse], indices.dtype),
                                tuple(range(indices.ndim - 1)))
        mask = jnp.all(indices < limit, -1)
        if data.ndim > mask.ndim:
            mask = lax.expand_dims(mask, tuple(range(mask.ndim, data.ndim)))
        data = jnp.where(mask, data, 0)
    kept = [i for i in range(n_sparse) if i + n_batch not in axes]
    if kept:
        indices = indices[..., np.array(kept, int)]
    else:
        indices = jnp.zeros(indices.shape[:-1] + (0,), indices.dtype)
    batch_axes = [a for a in axes if a < n_batch]
    for ax in batch_axes:               # broadcast batch dims first
        if data.shape[ax] == 1:
            if indices.shape[ax] == 1:
                data = data * shape[ax]
            else:
                data = lax.broadcast_in_dim(data, data.shape[:ax] + (shape[ax],) +
                                            data.shape[ax + 1:], tuple(range(data.ndim)))
        elif indices.shape[ax] == 1:
            data = data.sum(ax, keepdims=True)
    kept_batch = tuple(i for i in range(n_batch) if i not in batch_axes)
    new_nse = nse * math.prod(data.shape[i] for i in batch_axes)
    data = lax.reshape(data, (*(data.shape[i] for i in kept_batch), new_nse,
                              *data.shape[n_batch + 1:]),
                       (*kept_batch, *batch_axes, *range(n_batch, data.ndim)))
    indices = lax.reshape(indices, (*(indices.shape[i] for i in kept_batch), new_nse,
                                    *indices.shape[n_batch + 1:]),
                          (*kept_batch, *batch_axes, *range(n_batch, indices.ndim)))
    out_shape = tuple(s for i, s in enumerate(shape) if i not in axes)
    return BCOO((data, indices), shape=out_shape)


def bcoo_reshape(mat: BCOO, *, new_sizes, dimensions=None, sharding=None) -> BCOO:
    """`lax.reshape` of a BCOO array whose batch, sparse and dense dims do not mix: batch and
    dense dims reshape the buffers, sparse dims are re-indexed through a flat index."""
    # `dimensions` may permute among batch, among sparse and among dense dims only
    batch_perm, sparse_perm, dense_perm = _split_permutation(
        mat.n_batch, mat.n_sparse, mat.n_dense,
        tuple(range(mat.ndim)) if dimensions is None else tuple(dimensions), mat.shape)
    if mat.indices.shape[:mat.n_batch] != mat.data.shape[:mat.n_batch] or \
            mat.data.shape[:mat.n_batch] != mat.shape[:mat.n_batch]:
        raise NotImplementedError("reshape of arrays with broadcasted batch dimensions.")
    new_sizes = tuple(int(s) for s in new_sizes)
    batch_shape = mat.shape[:mat.n_batch]
    sparse_shape = mat.shape[mat.n_batch:mat.n_batch + mat.n_sparse]
    batch_size, sparse_size = math.prod(batch_shape), math.prod(sparse_shape)
    cuml = np.cumprod(new_sizes)
    if batch_size != 1 and batch_size not in cuml:
        raise ValueError(f"bcoo_reshape: new shape cannot mix batch and sparse dimensions; got "
                         f"shape={mat.shape} new_shape={new_sizes} with n_batch={mat.n_batch}")
    if sparse_size != 1 and batch_size * sparse_size not in cuml:
        raise ValueError(f"bcoo_reshape: new shape cannot mix sparse and dense dimensions; got "
                         f"shape={mat.shape} new_shape={new_sizes} with n_dense={mat.n_dense}")
    i1 = int(cuml.searchsorted(batch_size, side="right"))
    i2 = int(cuml.searchsorted(batch_size * sparse_size, side="right"))
    new_batch, new_sparse, new_dense = new_sizes[:i1], new_sizes[i1:i2], new_sizes[i2:]
    data = lax.reshape(mat.data, (*new_batch, mat.nse, *new_dense),
                       (*batch_perm, mat.n_batch, *(p + mat.n_batch + 1 for p in dense_perm)))
    indices = lax.reshape(mat.indices, (*new_batch, mat.nse, mat.n_sparse),
                          (*batch_perm, mat.n_batch, mat.n_batch + 1))
    if not new_sparse:
        indices = jnp.zeros(indices.shape[:-1] + (0,), indices.dtype)
    elif sparse_shape:
        cols = tuple(indices[..., i] for i in sparse_perm)
        flat = jnp.ravel_multi_index(cols, dims=tuple(int(sparse_shape[i]) for i in sparse_perm),
                                     mode="clip")
        # (the bounds at the indices' rank: under jax_numpy_rank_promotion='raise' too)
        lead = (1,) * (indices.ndim - 1)
        oob = (indices >= jnp.array(sparse_shape, indices.dtype).reshape(lead + (-1,))).any(
            -1, keepdims=True)
        new_cols = jnp.unravel_index(flat, new_sparse)
        indices = jnp.concatenate([c[..., None] for c in new_cols], axis=-1).astype(
            indices.dtype)
        indices = jnp.where(oob, jnp.array(new_sparse, indices.dtype).reshape(lead + (-1,)),
                            indices)
    return BCOO((data, indices), shape=new_sizes)




def bcoo_gather(operand: BCOO, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices: bool = False, indices_are_sorted: bool = False,
                mode=None, fill_value=None) -> BCOO:
    """BCOO version of lax.gather: one `bcoo_dynamic_slice` per start index (vmapped, so
    the starts' batch becomes the result's leading batch dims), its collapsed dims
    squeezed, then the dims put where `offset_dims` says. What `M[jnp.array([0, 2])]` runs.

    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.], [0., 3.]]))
    >>> M[jnp.array([2, 0])].todense()
    Array([[0., 3.],
           [0., 1.]], dtype=float32)
    """
    _validate(operand.data.shape, operand.indices.shape, operand.shape)
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    if GatherScatterMode.from_any(mode) != GatherScatterMode.PROMISE_IN_BOUNDS:
        raise NotImplementedError(f"bcoo_gather: mode={mode!r} not yet supported.")
    start_indices = jnp.asarray(start_indices)
    # lax.gather's own checks (and words) and the result's shape, on the shapes alone
    out = eval_shape(lambda x, i: lax.gather(
        x, i, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
        unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, mode=mode,
        fill_value=fill_value), ShapeDtypeStruct(operand.shape, operand.dtype),
        ShapeDtypeStruct(start_indices.shape, start_indices.dtype))
    # every dim gets a start (0 where the gather does not index it) and a slice size
    starts = [jnp.zeros((), start_indices.dtype)] * operand.ndim
    in_axes = [None] * operand.ndim
    sizes = list(operand.shape)
    for i, d in enumerate(dimension_numbers.start_index_map):
        starts[d] = start_indices[..., i].ravel()
        sizes[d] = slice_sizes[d]
        in_axes[d] = 0

    def one_slice(starts):
        piece = bcoo_dynamic_slice(operand, starts, slice_sizes=sizes)
        return bcoo_squeeze(piece, dimensions=dimension_numbers.collapsed_slice_dims)
    result = vmap(one_slice, in_axes=(in_axes,))(starts)
    result = bcoo_reshape(result, new_sizes=(*start_indices.shape[:-1], *result.shape[1:]),
                          dimensions=tuple(range(result.ndim)))
    if result.shape:
        # the gather's batch dims lead `result`; offset_dims says where the slice dims go
        offset_dims = tuple(dimension_numbers.offset_dims)
        batch_dims = tuple(d for d in range(len(out.shape)) if d not in offset_dims)
        perm = np.zeros(result.ndim, dtype=int)
        perm[np.array(batch_dims + offset_dims, dtype=int)] = np.arange(result.ndim)
        if set(perm[:len(batch_dims)]) != set(range(len(batch_dims))):
            # a permutation that moves dims across the batch boundary: no batch dims then
            result = bcoo_update_layout(result, n_batch=0)
        result = bcoo_transpose(result, permutation=tuple(int(p) for p in perm))
    return result.reshape(out.shape).astype(out.dtype)
