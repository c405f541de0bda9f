"""sparse @ sparse: the primitive `bcoo_spdot_general`, JAX's `dot_general` of two BCOO
arrays whose result is a BCOO array, with its rules; and `bcoo_dot_general`, the public
contraction of a BCOO with a dense array or another BCOO; `bcoo_multiply_sparse`; and the
primitive `bcoo_dot_general_sampled`, a dense product computed at given sparse indices;
`bcoo_conv_general_dilated`, JAX's 1-D sparse convolution. Every pair of stored elements (one of
each side) that agree on the contracted indices makes a product stored at the pair's free
indices; products at one place are then summed (`bcoo_sum_duplicates`), in an nse of the
product of the sides' (at most the result's size).

    >>> A = BCOO.fromdense(jnp.array([[1., 0.], [0., 2.]]))
    >>> bcoo_spdot_general(A, A, dimension_numbers=(((1,), (0,)), ((), ()))).todense()
    Array([[1., 0.],
           [0., 4.]], dtype=float32)
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray, get_aval
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...lax import _lowering as hl
from ...lax.dot import (_dot_general_batch_dim_nums, _dot_general_dtype, _dot_general_shape,
                        _remaining)
from ...transforms import ad_util as ad
from ...core.avals import ShapeDtypeStruct
from ...core.basearray import Array
from ...transforms.ad import vjp
from ...transforms.make_jaxpr import make_jaxpr
from ._base import SparseInfo
from .bcoo import (BCOO, _bcoo_dot_general, _bcoo_extract, _bcoo_rdot_general, _bcoo_todense,
                   _move_batch_to_front, _validate, bcoo_extract_p)
from .batch_vmap import nfold_vmap
from .bcoo_layout import _bcoo_sum_duplicates, bcoo_update_layout
from .coo import mapped_definition

bcoo_spdot_general_p = Primitive("bcoo_spdot_general", multiple_results=True)


def _unbatched(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_shape, rhs_shape,
               lhs_contracting, rhs_contracting, out_nse, dtype):
    """One batch of each side: the (lhs.nse * rhs.nse) pair products, zero where the
    contracted indices differ or either is padding, at the pair's free indices, then summed
    into `out_nse` slots."""
    out_shape = (*(s for i, s in enumerate(lhs_shape) if i not in lhs_contracting),
                 *(s for i, s in enumerate(rhs_shape) if i not in rhs_contracting))
    cols = lambda ind, dims: ind[:, np.array(dims, int)]
    lhs_i, rhs_i = cols(lhs_indices, lhs_contracting), cols(rhs_indices, rhs_contracting)
    lhs_j = cols(lhs_indices, _remaining(range(lhs_indices.shape[-1]), lhs_contracting))
    rhs_j = cols(rhs_indices, _remaining(range(rhs_indices.shape[-1]), rhs_contracting))
    overlap = (lhs_i[:, None] == rhs_i[None, :]).all(-1)
    limit = lambda shape, dims, i: jnp.array([shape[d] for d in dims], i.dtype)[None, :]
    lhs_valid = (lhs_i < limit(lhs_shape, lhs_contracting, lhs_i)).all(-1)
    rhs_valid = (rhs_i < limit(rhs_shape, rhs_contracting, rhs_i)).all(-1)
    products = (lhs_data[:, None] * rhs_data[None, :]).astype(dtype)
    out_data = jnp.where(overlap & lhs_valid[:, None] & rhs_valid[None, :], products,
                         0).ravel()
    index_dtype = jnp.result_type(lhs_indices, rhs_indices)
    n_l = lhs_j.shape[-1]
    out_indices = jnp.zeros((lhs_indices.shape[0], rhs_indices.shape[0],
                             n_l + rhs_j.shape[-1]), index_dtype)
    out_indices = out_indices.at[:, :, :n_l].set(lhs_j[:, None]).at[:, :, n_l:].set(
        rhs_j[None, :])
    out_indices = out_indices.reshape(out_data.shape[0], out_indices.shape[-1])
    # (zeros are not eliminated: that would break autodiff, as JAX notes)
    return _bcoo_sum_duplicates(out_data, out_indices, spinfo=SparseInfo(shape=out_shape),
                                nse=out_nse)


def _impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
          dimension_numbers, preferred_element_type):
    data_aval, _ = _abstract_eval(*map(get_aval, (lhs_data, lhs_indices, rhs_data,
                                                  rhs_indices)),
                                  lhs_spinfo=lhs_spinfo, rhs_spinfo=rhs_spinfo,
                                  dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type)
    lhs = _validate(lhs_data.shape, lhs_indices.shape, lhs_spinfo.shape)
    rhs = _validate(rhs_data.shape, rhs_indices.shape, rhs_spinfo.shape)
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    # the dot's batch dims first on each side
    lhs_perm = [*lhs_batch, *_remaining(range(lhs.n_batch), lhs_batch)]
    rhs_perm = [*rhs_batch, *_remaining(range(rhs.n_batch), rhs_batch)]
    front = lambda x, perm, n: x.transpose([*perm, *range(n, x.ndim)])
    lhs_data, lhs_indices = (front(x, lhs_perm, lhs.n_batch) for x in (lhs_data, lhs_indices))
    rhs_data, rhs_indices = (front(x, rhs_perm, rhs.n_batch) for x in (rhs_data, rhs_indices))

    def one(ld, li, rd, ri):
        return _unbatched(ld, li, rd, ri, lhs_shape=lhs_spinfo.shape[lhs.n_batch:],
                          rhs_shape=rhs_spinfo.shape[rhs.n_batch:],
                          lhs_contracting=[d - lhs.n_batch for d in lhs_contracting],
                          rhs_contracting=[d - rhs.n_batch for d in rhs_contracting],
                          out_nse=data_aval.shape[-1], dtype=data_aval.dtype)
    # free batch dims: rhs's innermost, then lhs's, then the shared (dot batch) ones
    f = nfold_vmap(one, rhs.n_batch - len(rhs_batch), in_axes=(None, None, 0, 0))
    f = nfold_vmap(f, lhs.n_batch - len(lhs_batch), in_axes=(0, 0, None, None))
    return list(nfold_vmap(f, len(lhs_batch))(lhs_data, lhs_indices, rhs_data, rhs_indices))


def _abstract_eval(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
                   dimension_numbers, preferred_element_type):
    lhs_dense = ShapedArray(lhs_spinfo.shape, lhs_data.dtype)
    rhs_dense = ShapedArray(rhs_spinfo.shape, rhs_data.dtype)
    out_shape = _dot_general_shape(lhs_dense, rhs_dense, dimension_numbers)
    out_dtype = np.dtype(_dot_general_dtype(lhs_dense, rhs_dense, preferred_element_type))
    lhs = _validate(lhs_data.shape, lhs_indices.shape, lhs_spinfo.shape)
    rhs = _validate(rhs_data.shape, rhs_indices.shape, rhs_spinfo.shape)
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    if lhs.n_dense or rhs.n_dense:
        raise NotImplementedError("bcoo_spdot_general with dense dimensions.")
    if (lhs_batch and max(lhs_batch) >= lhs.n_batch) or \
            (rhs_batch and max(rhs_batch) >= rhs.n_batch):
        raise NotImplementedError("bcoo_spdot_general: batch_dims must correspond to batch "
                                  "dimensions of the sparse representation.")
    for props, contracting in ((lhs, lhs_contracting), (rhs, rhs_contracting)):
        if contracting and (min(contracting) < props.n_batch or
                            max(contracting) >= props.n_batch + props.n_sparse):
            raise NotImplementedError("bcoo_spdot_general only supports contraction of "
                                      "sparse indices.")
    if rhs.n_batch > len(rhs_batch) and lhs.n_sparse > len(lhs_contracting):
        raise ValueError("bcoo_spdot_general: cannot have unused batch dims on rhs with "
                         "unused sparse dims on lhs.")
    out_nse = ((lhs.nse if lhs.n_sparse > len(lhs_contracting) else 1) *
               (rhs.nse if rhs.n_sparse > len(rhs_contracting) else 1))
    out_n_batch = lhs.n_batch + rhs.n_batch - len(lhs_batch)
    out_nse = min(out_nse, math.prod(out_shape[out_n_batch:]))    # no more than positions

    def free_batch(data, indices, n_batch, batch):
        return tuple(np.broadcast_shapes(
            tuple(data.shape[d] for d in range(n_batch) if d not in batch),
            tuple(indices.shape[d] for d in range(n_batch) if d not in batch)))
    batch_shape = (*(lhs_spinfo.shape[d] for d in lhs_batch),
                   *free_batch(lhs_data, lhs_indices, lhs.n_batch, lhs_batch),
                   *free_batch(rhs_data, rhs_indices, rhs.n_batch, rhs_batch))
    n_sparse = lhs.n_sparse + rhs.n_sparse - 2 * len(lhs_contracting)
    data_aval = ShapedArray((*batch_shape, out_nse), out_dtype)
    indices_aval = ShapedArray((*batch_shape, out_nse, n_sparse), lhs_indices.dtype)
    _validate(data_aval.shape, indices_aval.shape, out_shape)
    return [data_aval, indices_aval]


def _jvp(primals, tangents, **params):
    # bilinear in the two data buffers; the indices carry no tangent
    lhs_data, lhs_indices, rhs_data, rhs_indices = primals
    lhs_dot, _, rhs_dot, _ = tangents
    out = bcoo_spdot_general_p.bind(*primals, **params)
    data_dot = ad.Zero.like(out[0])
    if type(lhs_dot) is not ad.Zero:
        data_dot = bcoo_spdot_general_p.bind(lhs_dot, lhs_indices, rhs_data, rhs_indices,
                                             **params)[0]
    if type(rhs_dot) is not ad.Zero:
        term = bcoo_spdot_general_p.bind(lhs_data, lhs_indices, rhs_dot, rhs_indices,
                                         **params)[0]
        data_dot = term if type(data_dot) is ad.Zero else data_dot + term
    return out, [data_dot, ad.Zero.like(out[1])]


def _transpose(ct, lhs_data, lhs_indices, rhs_data, rhs_indices, **params):
    """The cotangent of the one undefined data buffer: the pullback of the product, linear
    in it, of the definition (JAX has no transpose rule here: grad of sparse @ sparse
    stops there)."""
    data_ct, _ = ct
    if ad.is_undefined(lhs_indices) or ad.is_undefined(rhs_indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    undefined = [ad.is_undefined(x) for x in (lhs_data, rhs_data)]
    if all(undefined):
        raise ValueError("bcoo_spdot_general is not linear in both data buffers at once")
    which = 0 if undefined[0] else 1
    target = (lhs_data, rhs_data)[which]
    if type(data_ct) is ad.Zero:
        cts = [None] * 4
        cts[2 * which] = ad.Zero(target.aval)
        return cts

    def product(d):
        args = [lhs_data, lhs_indices, rhs_data, rhs_indices]
        args[2 * which] = d
        return _impl(*args, **params)[0]
    _, pullback = vjp(product, jnp.zeros(target.aval.shape, target.aval.dtype))
    cts = [None] * 4
    cts[2 * which] = pullback(data_ct)[0]
    return cts


def _batching(vals, dims, *, lhs_spinfo, rhs_spinfo, dimension_numbers,
              preferred_element_type):
    size = max(x.shape[d] for x, d in zip(vals, dims) if d is not None)
    lhs_data, lhs_indices, lhs_info = _move_batch_to_front(vals[:2], dims[:2], lhs_spinfo, size)
    rhs_data, rhs_indices, rhs_info = _move_batch_to_front(vals[2:], dims[2:], rhs_spinfo, size)
    new_dims, out_dim = _dot_general_batch_dim_nums(
        (len(lhs_spinfo.shape), len(rhs_spinfo.shape)), (0, 0), dimension_numbers)
    out = bcoo_spdot_general_p.bind(lhs_data, lhs_indices, rhs_data, rhs_indices,
                                    lhs_spinfo=lhs_info, rhs_spinfo=rhs_info,
                                    dimension_numbers=new_dims,
                                    preferred_element_type=preferred_element_type)
    return out, [out_dim, out_dim]


abstract_eval_rules[bcoo_spdot_general_p] = _abstract_eval
lowering_rules[bcoo_spdot_general_p] = hl.lower_fun(_impl, multiple_results=True)
numpy_rules[bcoo_spdot_general_p] = hl.numpy_fun(_impl, multiple_results=True)
jvp_rules[bcoo_spdot_general_p] = _jvp
transpose_rules[bcoo_spdot_general_p] = _transpose
batching_rules[bcoo_spdot_general_p] = _batching


def _index_tuple(dims) -> tuple:
    return tuple(operator.index(d) for d in dims)


def bcoo_spdot_general(lhs: BCOO, rhs: BCOO, *, dimension_numbers,
                       preferred_element_type=None) -> BCOO:
    """`lax.dot_general` of two BCOO arrays (contracting sparse dims, batching over batch
    dims): a BCOO array."""
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    if preferred_element_type is not None:
        preferred_element_type = np.dtype(preferred_element_type)
    shape = _dot_general_shape(ShapedArray(lhs.shape, lhs.dtype),
                               ShapedArray(rhs.shape, rhs.dtype), dims)
    data, indices = bcoo_spdot_general_p.bind(
        lhs.data, lhs.indices, rhs.data, rhs.indices, lhs_spinfo=lhs._info,
        rhs_spinfo=rhs._info, dimension_numbers=dims,
        preferred_element_type=preferred_element_type)
    return BCOO((data, indices), shape=shape)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """A general contraction operation: `lax.dot_general` with a BCOO operand on either
    side (dense result) or both (a BCOO result, by `bcoo_spdot_general`)."""
    del precision, out_sharding        # unused, as in JAX
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        return bcoo_spdot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type)
    if isinstance(lhs, BCOO):
        return _bcoo_dot_general(lhs.data, lhs.indices, rhs, dimension_numbers=dimension_numbers,
                                 preferred_element_type=preferred_element_type,
                                 lhs_spinfo=lhs._info)
    if isinstance(rhs, BCOO):
        return _bcoo_rdot_general(lhs, rhs.data, rhs.indices, dimension_numbers=dimension_numbers,
                                  preferred_element_type=preferred_element_type,
                                  rhs_spinfo=rhs._info)
    return lax.dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                           preferred_element_type=preferred_element_type)


def bcoo_multiply_sparse(lhs: BCOO, rhs: BCOO) -> BCOO:
    """The elementwise product of two BCOO arrays: every pair of stored elements (one of
    each) at the same index gives a stored element, so the result holds lhs.nse * rhs.nse
    (those of no pair are padding). Batch dims the other side lacks are made sparse first.

    >>> A = BCOO.fromdense(jnp.array([1., 0., 2.]))
    >>> bcoo_multiply_sparse(A, A).todense()
    Array([1., 0., 4.], dtype=float32)
    """
    lp = _validate(lhs.data.shape, lhs.indices.shape, lhs.shape)
    rp = _validate(rhs.data.shape, rhs.indices.shape, rhs.shape)
    if len(lhs.shape) != len(rhs.shape):
        raise TypeError("bcoo_multiply_sparse: arrays must have same number of dimensions, "
                        f"got {lhs.shape}, {rhs.shape}")
    if lp.n_dense != rp.n_dense:
        raise NotImplementedError("bcoo_multiply_sparse: arrays with differing numbers of "
                                  f"dense dimensions: {lp}, {rp}")
    n_batch = min(lp.n_batch, rp.n_batch)
    lshape, rshape = lhs.shape[n_batch:], rhs.shape[n_batch:]
    one = lambda ld, li, rd, ri: _multiply_unbatched(ld, li, rd, ri, lshape, rshape)
    data, indices = nfold_vmap(one, n_batch)(lhs.data, lhs.indices, rhs.data, rhs.indices)
    return BCOO((data, indices), shape=tuple(np.broadcast_shapes(lhs.shape, rhs.shape)))


def _multiply_unbatched(ldata, lind, rdata, rind, lshape, rshape):
    # the side with batch dims left has them made sparse (as JAX: inefficient, but general)
    if lind.ndim > 2:
        ldata, lind = bcoo_update_layout(BCOO((ldata, lind), shape=lshape), n_batch=0)._bufs
    elif rind.ndim > 2:
        rdata, rind = bcoo_update_layout(BCOO((rdata, rind), shape=rshape), n_batch=0)._bufs
    l_nse, r_nse, n_sparse = lind.shape[0], rind.shape[0], lind.shape[1]
    # sparse dims broadcast against a size-1 dim match any index there
    dims = np.array([i for i, (a, b) in enumerate(zip(lshape[:n_sparse], rshape[:n_sparse]))
                     if a != 1 and b != 1], int)
    nse = l_nse * r_nse
    same = jnp.all(lind[:, None, dims] == rind[None, :, dims], -1)
    il, ir = jnp.nonzero(same, size=nse, fill_value=(l_nse, r_nse))
    data = (ldata.at[il].get(mode="fill", fill_value=0) *
            rdata.at[ir].get(mode="fill", fill_value=0))
    indices = jnp.maximum(lind.at[il].get(mode="fill", fill_value=max(lshape, default=0)),
                          rind.at[ir].get(mode="fill", fill_value=max(rshape, default=0)))
    return data, indices


# ------------------------------------------------------------------ bcoo_dot_general_sampled
bcoo_dot_general_sampled_p = Primitive("bcoo_dot_general_sampled")


def _sampled_impl(A, B, indices, *, dimension_numbers):
    # the dense product read at the indices (JAX has faster paths for two small cases, of
    # the same values)
    return _bcoo_extract(indices, lax.dot_general(A, B, dimension_numbers,
                                                  precision=lax.Precision.HIGHEST))


def _sampled_abstract_eval(A, B, indices, *, dimension_numbers):
    dense = ShapedArray(_dot_general_shape(A, B, dimension_numbers),
                        np.dtype(_dot_general_dtype(A, B, None)))
    return abstract_eval_rules[bcoo_extract_p](indices, dense, assume_unique=True)


def _sampled_transpose(ct, A, B, indices, *, dimension_numbers):
    """The cotangent of the dense product is `ct` scattered to the indices; from there,
    dot_general's own cotangent of the undefined operand."""
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    which = 0 if ad.is_undefined(A) else 1
    target = (A, B)[which]
    cts = [None, None, None]
    if type(ct) is ad.Zero:
        cts[which] = ad.Zero(target.aval)
        return cts
    avals = [x.aval if ad.is_undefined(x) else get_aval(x) for x in (A, B)]
    dense_ct = _bcoo_todense(ct, indices, spinfo=SparseInfo(
        _dot_general_shape(*avals, dimension_numbers)))

    def product(x):
        args = [A, B]
        args[which] = x
        return lax.dot_general(*args, dimension_numbers)
    _, pullback = vjp(product, jnp.zeros(target.aval.shape, target.aval.dtype))
    cts[which] = pullback(dense_ct)[0]
    return cts


abstract_eval_rules[bcoo_dot_general_sampled_p] = _sampled_abstract_eval
lowering_rules[bcoo_dot_general_sampled_p] = hl.lower_fun(_sampled_impl)
numpy_rules[bcoo_dot_general_sampled_p] = hl.numpy_fun(_sampled_impl)
ad.defjvp(bcoo_dot_general_sampled_p,
          lambda t, ans, A, B, indices, **params: bcoo_dot_general_sampled_p.bind(
              t, B, indices, **params),
          lambda t, ans, A, B, indices, **params: bcoo_dot_general_sampled_p.bind(
              A, t, indices, **params),
          None)
transpose_rules[bcoo_dot_general_sampled_p] = _sampled_transpose
batching_rules[bcoo_dot_general_sampled_p] = mapped_definition(_sampled_impl)


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """A contraction operation with output computed at given sparse indices: the BCOO data
    of `lax.dot_general(A, B)` at `indices`.

    >>> A = jnp.array([[1., 2.], [3., 4.]])
    >>> bcoo_dot_general_sampled(A, A, jnp.array([[0, 1]]),
    ...                          dimension_numbers=(((1,), (0,)), ((), ())))
    Array([10.], dtype=float32)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb)))
    return bcoo_dot_general_sampled_p.bind(jnp.asarray(A), jnp.asarray(B),
                                           jnp.asarray(indices), dimension_numbers=dims)


# ------------------------------------------------------------------ bcoo_conv_general_dilated
def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None,
                              rhs_dilation=None, dimension_numbers=None,
                              feature_group_count=1, batch_group_count=1, precision=None,
                              preferred_element_type=None, out_sharding=None) -> BCOO:
    """lax.conv_general_dilated of BCOO (or dense) operands, as far as JAX 0.10.2 goes: one
    spatial dim, leading (batch, feature) dims of size 1, unit strides and dilations. Every
    pair of stored elements makes a product at lhs index + pad - rhs index (a
    cross-correlation), so the result stores nse(lhs) * nse(rhs) elements, unsummed.

    >>> x = BCOO.fromdense(jnp.array([[[0., 1., 0., 2.]]]))
    >>> bcoo_conv_general_dilated(x, jnp.array([[[1., 10.]]]), window_strides=(1,),
    ...                           padding="SAME").todense()
    Array([[[10.,  1., 20.,  2.]]], dtype=float32)
    """
    def conv(a, b):
        return lax.conv_general_dilated(
            a, b, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
            rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
            feature_group_count=feature_group_count, batch_group_count=batch_group_count,
            precision=precision, preferred_element_type=preferred_element_type,
            out_sharding=out_sharding)
    # lax's own checks, and its parameters made canonical (padding as pairs), on the shapes
    params = make_jaxpr(conv)(ShapeDtypeStruct(lhs.shape, lhs.dtype),
                              ShapeDtypeStruct(rhs.shape, rhs.dtype)).eqns[0].params
    if params["lhs_dilation"] != (1,) * (lhs.ndim - 2):
        raise NotImplementedError("bcoo convolution with lhs_dilation.")
    if params["rhs_dilation"] != (1,) * (rhs.ndim - 2):
        raise NotImplementedError("bcoo convolution with lhs_dilation.")   # (JAX's words)
    if params["window_strides"] != (1,) * (lhs.ndim - 2):
        raise NotImplementedError("bcoo convolution with non-unit window_strides.")
    # (JAX's chained comparisons, kept: they refuse a little less than they say)
    if params["batch_group_count"] != params["feature_group_count"] != 1:
        raise NotImplementedError("bcoo convolution with non-unit group counts.")
    if lhs.shape[:2] != rhs.shape[:2] != (1, 1):
        raise NotImplementedError("bcoo convolution with leading dimensions other than (1, 1)")
    index_dtype = (lhs.indices.dtype if hasattr(lhs, "indices") else
                   rhs.indices.dtype if hasattr(rhs, "indices") else "int32")
    (pad,) = params["padding"]
    return _bcoo_conv_1d(_as_1d_for_conv(lhs, index_dtype), _as_1d_for_conv(rhs, index_dtype),
                         padding=pad)


def _as_1d_for_conv(mat, index_dtype) -> BCOO:
    """The 1-D BCOO under the (1, 1, n) operand `mat` (a dense one stores every element)."""
    if isinstance(mat, (Array, np.ndarray)):
        data = lax.squeeze(mat, (0, 1))
        indices = lax.broadcasted_iota(index_dtype, (len(data), 1), 0)
    elif isinstance(mat, BCOO):
        mat = mat.update_layout(n_batch=2, n_dense=0)
        data = lax.squeeze(mat.data, (0, 1))
        indices = lax.squeeze(mat.indices, (0, 1))
        # padding slots' data zeroed: their products would land in range otherwise
        data = jnp.where(lax.squeeze(indices, (1,)) < mat.shape[-1], data, 0)
    else:
        raise TypeError(f"bcoo_conv_general_dilated: input of type {type(mat)} not recognized.")
    return BCOO((data, indices), shape=mat.shape[2:])


def _bcoo_conv_1d(lhs: BCOO, rhs: BCOO, padding) -> BCOO:
    lo, hi = (int(p) for p in padding)
    data = (lhs.data[:, None] * rhs.data[None, :]).ravel()
    indices = (lhs.indices[:, None] + (lo - rhs.indices)[None, :]).ravel()
    before = indices < 0            # products that fall before the output: zero, at 0
    indices = jnp.where(before, 0, indices)
    data = jnp.where(before, 0, data)
    size = max(0, lhs.shape[0] + lo + hi - rhs.shape[0] + 1)
    return BCOO((lax.expand_dims(data, (0, 1)), lax.expand_dims(indices, (0, 1, 3))),
                shape=(1, 1, size))
