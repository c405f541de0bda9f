"""CSR and CSC, JAX's plain compressed-row and compressed-column matrices (2-D; JAX keeps them
for cuSPARSE and points users to BCOO/BCSR), and the primitives `csr_todense`,
`csr_fromdense`, `csr_matvec` and `csr_matmat` with their rules, each defined through the
COO primitive of its job on the (row, col) that (indices, indptr) stand for, as JAX's. A CSC
is the CSR of its transpose.

    >>> M = CSR.fromdense(jnp.array([[0., 2.], [3., 4.]]))
    >>> M.indices.tolist(), M.indptr.tolist(), (M.T @ jnp.array([1., 1.])).tolist()
    ([1, 0, 1], [0, 1, 3], [3.0, 6.0])
"""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                               numpy_rules, transpose_rules)
from ...lax import _lowering as hl
from ...numpy.util import promote_dtypes
from ...transforms import ad_util as ad
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse
from .bcsr import _csr_to_coo
from .coo import (COOInfo, _coo_extract, _coo_todense, coo_matmat_p, coo_matvec_p,
                  concrete_nse, fromdense_rules, mapped_definition)


def _csr_extract(indices, indptr, mat):
    return _coo_extract(*_csr_to_coo(indices, indptr), mat)


def _check_bufs(data, indices, indptr, shape):
    if not data.ndim == indices.ndim == indptr.ndim == 1 or data.shape != indices.shape:
        raise TypeError(f"CSR buffers must be 1-D, data and indices of one length; got "
                        f"{data}, {indices}, {indptr}")
    if indices.dtype != indptr.dtype:
        raise TypeError(f"CSR indices and indptr must share a dtype; got {indices.dtype}, "
                        f"{indptr.dtype}")
    if indptr.shape[0] != shape[0] + 1:
        raise TypeError(f"CSR indptr of shape {indptr.shape} for a matrix of shape {shape}")


# ------------------------------------------------------------------ csr_todense
csr_todense_p = Primitive("csr_todense")


def _todense_impl(data, indices, indptr, *, shape):
    row, col = _csr_to_coo(indices, indptr)
    return _coo_todense(data, row, col, spinfo=COOInfo(shape=shape))


def _todense_abstract_eval(data, indices, indptr, *, shape):
    _check_bufs(data, indices, indptr, shape)
    return ShapedArray(shape, data.dtype)


def _todense_transpose(ct, data, indices, indptr, *, shape):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [ad.Zero(data.aval), None, None]
    return [_csr_extract(indices, indptr, ct), None, None]


abstract_eval_rules[csr_todense_p] = _todense_abstract_eval
lowering_rules[csr_todense_p] = hl.lower_fun(_todense_impl)
numpy_rules[csr_todense_p] = hl.numpy_fun(_todense_impl)
ad.defjvp(csr_todense_p, lambda t, ans, data, indices, indptr, *, shape:
          _csr_todense(t, indices, indptr, shape=shape), None, None)
transpose_rules[csr_todense_p] = _todense_transpose
batching_rules[csr_todense_p] = mapped_definition(_todense_impl)


def _csr_todense(data, indices, indptr, *, shape):
    return csr_todense_p.bind(jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr),
                              shape=tuple(shape))


def csr_todense(mat: CSR):
    """Convert a CSR-format sparse matrix to a dense matrix."""
    return _csr_todense(mat.data, mat.indices, mat.indptr, shape=mat.shape)


# ------------------------------------------------------------------ csr_fromdense
csr_fromdense_p = Primitive("csr_fromdense", multiple_results=True)


def _fromdense_impl(mat, *, nse, index_dtype):
    m = mat.shape[0]
    row, col = jnp.nonzero(mat, size=nse)
    real = jnp.arange(nse) < (mat != 0).sum()
    data = jnp.where(real, mat[row, col], 0)
    row = jnp.where(real, row, m)        # padding counts in no row
    indptr = jnp.zeros(m + 1, index_dtype).at[1:].set(
        jnp.cumsum(jnp.bincount(row, length=m).astype(index_dtype)))
    return [data, col.astype(index_dtype), indptr]


def _fromdense_abstract_eval(mat, *, nse, index_dtype):
    if mat.ndim != 2:
        raise ValueError(f"csr_fromdense: a 2-D array is needed; got shape {mat.shape}")
    return [ShapedArray((nse,), mat.dtype), ShapedArray((nse,), np.dtype(index_dtype)),
            ShapedArray((mat.shape[0] + 1,), np.dtype(index_dtype))]


fromdense_rules(csr_fromdense_p, _fromdense_impl, _fromdense_abstract_eval, _csr_extract)


def csr_fromdense(mat, *, nse: int | None = None, index_dtype=np.int32) -> CSR:
    """Create a CSR-format sparse matrix from a dense matrix (`nse` by default its number of
    nonzeros: a concrete `mat` is then needed)."""
    mat = jnp.asarray(mat)
    bufs = _csr_fromdense(mat, nse=(mat != 0).sum() if nse is None else nse,
                          index_dtype=index_dtype)
    return CSR(bufs, shape=mat.shape)


def _csr_fromdense(mat, *, nse, index_dtype=np.int32) -> tuple:
    """The buffers (data, indices, indptr) of the CSR matrix of the 2-D `mat`, `nse`
    (concrete) stored elements (JAX's buffer-level form of `csr_fromdense`)."""
    nse = concrete_nse(nse, "csr_fromdense nse argument")
    return tuple(csr_fromdense_p.bind(jnp.asarray(mat), nse=nse,
                                      index_dtype=np.dtype(index_dtype)))


# ------------------------------------------------------------------ csr_matvec, csr_matmat
csr_matvec_p = Primitive("csr_matvec")
csr_matmat_p = Primitive("csr_matmat")
_COO_OF = {csr_matvec_p: coo_matvec_p, csr_matmat_p: coo_matmat_p}


def _product(prim):
    def impl(data, indices, indptr, x, *, shape, transpose):
        row, col = _csr_to_coo(indices, indptr)
        return _COO_OF[prim].bind(data, row, col, x, spinfo=COOInfo(shape=shape),
                                  transpose=transpose)
    return impl


def _product_abstract_eval(prim):
    coo_rule = abstract_eval_rules[_COO_OF[prim]]

    def rule(data, indices, indptr, x, *, shape, transpose):
        _check_bufs(data, indices, indptr, shape)
        return coo_rule(data, indices, indices, x, spinfo=COOInfo(shape=shape),
                        transpose=transpose)
    return rule


def _product_transpose(prim):
    def rule(ct, data, indices, indptr, x, *, shape, transpose):
        if ad.is_undefined(indices) or ad.is_undefined(indptr):
            raise ValueError("Cannot transpose with respect to sparse indices")
        row, col = _csr_to_coo(indices, indptr)
        cts = transpose_rules[_COO_OF[prim]](ct, data, row, col, x,
                                             spinfo=COOInfo(shape=shape),
                                             transpose=transpose)
        if ad.is_undefined(x) and type(ct) is not ad.Zero:    # stay a CSR product
            cts[3] = prim.bind(data, indices, indptr, ct, shape=shape,
                               transpose=not transpose)
        return cts
    return rule


for _prim in (csr_matvec_p, csr_matmat_p):
    abstract_eval_rules[_prim] = _product_abstract_eval(_prim)
    lowering_rules[_prim] = hl.lower_fun(_product(_prim))
    numpy_rules[_prim] = hl.numpy_fun(_product(_prim))
    ad.defjvp(_prim,
              lambda t, ans, data, indices, indptr, x, _p=_prim, **params:
              _p.bind(t, indices, indptr, x, **params),
              None, None,
              lambda t, ans, data, indices, indptr, x, _p=_prim, **params:
              _p.bind(data, indices, indptr, t, **params))
    transpose_rules[_prim] = _product_transpose(_prim)
    batching_rules[_prim] = mapped_definition(_product(_prim))


def _csr_product(data, indices, indptr, x, *, shape, transpose=False):
    prim = csr_matvec_p if jnp.ndim(x) == 1 else csr_matmat_p
    return prim.bind(jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr),
                     jnp.asarray(x), shape=tuple(shape), transpose=bool(transpose))


def csr_matvec(mat: CSR, v, transpose: bool = False):
    """Product of CSR sparse matrix and a dense vector."""
    return _csr_matvec(*mat._bufs, v, shape=mat.shape, transpose=transpose)


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
    """Product of CSR sparse matrix and a dense matrix."""
    return _csr_matmat(*mat._bufs, B, shape=mat.shape, transpose=transpose)


def _csr_matvec(data, indices, indptr, v, *, shape, transpose: bool = False):
    """`csr_matvec` of the CSR matrix of buffers (data, indices, indptr) and `shape`."""
    return csr_matvec_p.bind(data, indices, indptr, jnp.asarray(v), shape=tuple(shape),
                             transpose=bool(transpose))


def _csr_matmat(data, indices, indptr, B, *, shape, transpose: bool = False):
    """`csr_matmat` of the CSR matrix of buffers (data, indices, indptr) and `shape`."""
    return csr_matmat_p.bind(data, indices, indptr, jnp.asarray(B), shape=tuple(shape),
                             transpose=bool(transpose))


# ------------------------------------------------------------------ CSR, CSC
class _Compressed(JAXSparse):
    """What CSR and CSC share: three buffers, a shape, products through csr_matvec/matmat."""
    n_batch = 0
    n_dense = 0

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = map(jnp.asarray, args)
        super().__init__(args, shape=shape)

    @property
    def _bufs(self):
        return (self.data, self.indices, self.indptr)

    @property
    def nse(self) -> int:
        return self.data.size

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), {"shape": self.shape}

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        if aux_data.keys() != {"shape"}:
            raise ValueError(f"{cls.__name__}.tree_unflatten: invalid aux_data={aux_data!r}")
        obj.__dict__.update(**aux_data)
        return obj

    @classmethod
    def _empty_bufs(cls, shape, dtype, index_dtype, n_ptr):
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(f"{cls.__name__} must have ndim=2; got shape={shape}")
        return (jnp.zeros(0, dtype), jnp.zeros(0, index_dtype),
                jnp.zeros(shape[n_ptr] + 1, index_dtype))

    def _matmul(self, other, csr_shape, transpose):
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        data, other = promote_dtypes(self.data, jnp.asarray(other))
        if other.ndim not in (1, 2):
            raise NotImplementedError(f"matmul with object of shape {other.shape}")
        return _csr_product(data, self.indices, self.indptr, other, shape=csr_shape,
                            transpose=transpose)


@register_pytree_node_class
class CSR(_Compressed):
    """Experimental CSR matrix implemented in JAX (prefer
    :class:`jax.experimental.sparse.BCSR` or BCOO).

    >>> CSR((jnp.array([1., 2.]), jnp.array([1, 0]), jnp.array([0, 1, 2])), shape=(2, 2)).todense()
    Array([[0., 1.],
           [2., 0.]], dtype=float32)
    """

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSR:
        return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> CSR:
        return cls(cls._empty_bufs(shape, dtype, index_dtype, 0), shape=tuple(shape))

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> CSR:
        diag_size = min(N, M - k) if k > 0 else min(N + k, M)
        if diag_size <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
        idx = jnp.arange(diag_size, dtype=index_dtype)
        row = idx - min(k, 0)
        indptr = jnp.zeros(N + 1, index_dtype).at[1:].set(
            jnp.cumsum(jnp.bincount(row, length=N).astype(index_dtype)))
        return cls((jnp.ones(diag_size, dtype), idx + max(k, 0), indptr), shape=(N, M))

    def todense(self):
        return csr_todense(self)

    def transpose(self, axes=None) -> CSC:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSC(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        return self._matmul(other, self.shape, False)


@register_pytree_node_class
class CSC(_Compressed):
    """Experimental CSC matrix implemented in JAX; API subject to change.

    >>> CSC.fromdense(jnp.array([[0., 1.], [2., 0.]])).indices.tolist()
    [1, 0]
    """

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSC:
        return csr_fromdense(jnp.asarray(mat).T, nse=nse, index_dtype=index_dtype).T

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> CSC:
        return cls(cls._empty_bufs(shape, dtype, index_dtype, 1), shape=tuple(shape))

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> CSC:
        return CSR._eye(M, N, -k, dtype=dtype, index_dtype=index_dtype).T

    def todense(self):
        return csr_todense(self.T).T

    def transpose(self, axes=None) -> CSR:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSR(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        return self._matmul(other, self.shape[::-1], True)
