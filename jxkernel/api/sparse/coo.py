"""COO, JAX's plain coordinate-format matrix (2-D, no batch or dense dims; JAX keeps it for
its cuSPARSE kernels and points users to BCOO), and its primitives `coo_todense`,
`coo_fromdense`, `coo_matvec` and `coo_matmat` with their rules. Off GPU JAX lowers them by
tracing their definitions, as here; their batching rules (JAX has none) map the definition.

    >>> M = COO.fromdense(jnp.array([[0., 2.], [3., 0.]]))
    >>> M.row.tolist(), M.col.tolist(), (M @ jnp.array([1., 1.])).tolist()
    ([0, 1], [1, 0], [2.0, 3.0])
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray
from ...core.errors import ConcretizationTypeError
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...core.trace import Tracer
from ...lax import _lowering as hl
from ...numpy.util import promote_dtypes
from ...transforms import ad_util as ad
from ...transforms.batching import vmap
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse


class COOInfo(NamedTuple):
    shape: tuple
    rows_sorted: bool = False
    cols_sorted: bool = False


def mapped_definition(impl, multiple_results=False):
    """A batching rule that maps a primitive's definition (written in lax/jnp) over the
    batched operands: the batched result, computed without the primitive."""
    def rule(vals, dims, **params):
        out = vmap(lambda *xs: impl(*xs, **params), in_axes=tuple(dims))(*vals)
        return (list(out), [0] * len(out)) if multiple_results else (out, 0)
    return rule


def concrete_nse(nse, what: str) -> int:
    """`nse` as a Python int: a traced one must be concrete (JAX's error otherwise)."""
    if isinstance(nse, Tracer):
        try:
            return operator.index(nse.to_concrete_value())
        except Exception:
            raise ConcretizationTypeError(nse, f"The error arose in {what}") from None
    return operator.index(np.asarray(nse)) if not isinstance(nse, int) else nse


def fromdense_rules(prim, impl, abstract_eval, extract) -> None:
    """Register the rules of `prim`, a fromdense primitive of a 2-D format (COO's, CSR's):
    `impl(mat, nse=, index_dtype=)` gives its (data, index, index) buffers, lowered and run
    by tracing it, batched by mapping it; its data's tangent is the matrix's tangent read at
    the indices (`extract(index, index, mat_dot)`), which have none; it transposes only a
    zero cotangent (the indices depend on the values)."""
    def jvp(primals, tangents, *, nse, index_dtype):
        (mat,), (mat_dot,) = primals, tangents
        data, i, j = prim.bind(mat, nse=nse, index_dtype=index_dtype)
        data_dot = ad.Zero.like(data) if type(mat_dot) is ad.Zero else extract(i, j, mat_dot)
        return [data, i, j], [data_dot, ad.Zero.like(i), ad.Zero.like(j)]

    def transpose(ct, mat, *, nse, index_dtype):
        if type(ct[0]) is ad.Zero:
            return [ad.Zero(mat.aval)]
        raise ValueError(f"Cannot transpose {prim.name}: its indices depend on the values")

    abstract_eval_rules[prim] = abstract_eval
    lowering_rules[prim] = hl.lower_fun(impl, multiple_results=True)
    numpy_rules[prim] = hl.numpy_fun(impl, multiple_results=True)
    jvp_rules[prim] = jvp
    transpose_rules[prim] = transpose
    batching_rules[prim] = mapped_definition(impl, multiple_results=True)


def _coo_extract(row, col, mat):
    return mat[row, col]


# ------------------------------------------------------------------ coo_todense
coo_todense_p = Primitive("coo_todense")


def _todense_impl(data, row, col, *, spinfo):
    return jnp.zeros(spinfo.shape, data.dtype).at[row, col].add(data)


def _todense_transpose(ct, data, row, col, *, spinfo):
    if ad.is_undefined(row) or ad.is_undefined(col):
        raise ValueError("Cannot transpose with respect to sparse indices")
    if type(ct) is ad.Zero:
        return [ad.Zero(data.aval), None, None]
    return [_coo_extract(row, col, ct), None, None]


abstract_eval_rules[coo_todense_p] = lambda data, row, col, *, spinfo: ShapedArray(
    spinfo.shape, data.dtype)
lowering_rules[coo_todense_p] = hl.lower_fun(_todense_impl)
numpy_rules[coo_todense_p] = hl.numpy_fun(_todense_impl)
ad.defjvp(coo_todense_p, lambda t, ans, data, row, col, *, spinfo:
          _coo_todense(t, row, col, spinfo=spinfo), None, None)
transpose_rules[coo_todense_p] = _todense_transpose
batching_rules[coo_todense_p] = mapped_definition(_todense_impl)


def _coo_todense(data, row, col, *, spinfo):
    return coo_todense_p.bind(jnp.asarray(data), jnp.asarray(row), jnp.asarray(col),
                              spinfo=spinfo)


def coo_todense(mat: COO):
    """Convert a COO-format sparse matrix to a dense matrix."""
    return _coo_todense(mat.data, mat.row, mat.col, spinfo=mat._info)


# ------------------------------------------------------------------ coo_fromdense
coo_fromdense_p = Primitive("coo_fromdense", multiple_results=True)


def _fromdense_impl(mat, *, nse, index_dtype):
    row, col = jnp.nonzero(mat, size=nse)
    data = jnp.where(jnp.arange(nse) < (mat != 0).sum(), mat[row, col], 0)
    return [data, row.astype(index_dtype), col.astype(index_dtype)]


def _fromdense_abstract_eval(mat, *, nse, index_dtype):
    if mat.ndim != 2:
        raise ValueError(f"coo_fromdense: a 2-D array is needed; got shape {mat.shape}")
    index = ShapedArray((nse,), np.dtype(index_dtype))
    return [ShapedArray((nse,), mat.dtype), index, index]


fromdense_rules(coo_fromdense_p, _fromdense_impl, _fromdense_abstract_eval, _coo_extract)


def coo_fromdense(mat, *, nse: int | None = None, index_dtype=jnp.int32) -> COO:
    """Create a COO-format sparse matrix from a dense matrix (`nse` by default its number of
    nonzeros: a concrete `mat` is then needed)."""
    mat = jnp.asarray(mat)
    bufs = _coo_fromdense(mat, nse=(mat != 0).sum() if nse is None else nse,
                          index_dtype=index_dtype)
    return COO(bufs, shape=mat.shape, rows_sorted=True)


def _coo_fromdense(mat, *, nse, index_dtype=jnp.int32) -> tuple:
    """The buffers (data, row, col) of the COO matrix of the 2-D `mat`, `nse` (concrete)
    stored elements (JAX's buffer-level form of `coo_fromdense`)."""
    nse = concrete_nse(nse, "coo_fromdense nse argument")
    return tuple(coo_fromdense_p.bind(jnp.asarray(mat), nse=nse,
                                      index_dtype=np.dtype(index_dtype)))


# ------------------------------------------------------------------ coo_matvec, coo_matmat
coo_matvec_p = Primitive("coo_matvec")
coo_matmat_p = Primitive("coo_matmat")


def _product_impl(data, row, col, x, *, spinfo, transpose):
    """sparse @ x for a vector or matrix x: each stored element scales x's row at its
    column, added into the output row at its row (swapped when `transpose`)."""
    if transpose:
        row, col = col, row
    rows = spinfo.shape[1] if transpose else spinfo.shape[0]
    scaled = data.reshape(data.shape + (1,) * (x.ndim - 1)) * x[col]
    return jnp.zeros((rows, *x.shape[1:]), scaled.dtype).at[row].add(scaled)


def _product_abstract_eval(ndim):
    def rule(data, row, col, x, *, spinfo, transpose):
        if not data.shape == row.shape == col.shape or row.dtype != col.dtype:
            raise TypeError("coo product: data, row and col must be of one shape, row and col "
                            f"of one dtype; got {data}, {row}, {col}")
        if data.dtype != x.dtype:
            raise TypeError(f"coo product: data and operand dtypes differ: {data.dtype}, "
                            f"{x.dtype}")
        inner = spinfo.shape[0] if transpose else spinfo.shape[1]
        if x.ndim != ndim or x.shape[0] != inner:
            raise TypeError(f"coo product: operand of shape {x.shape} for a matrix of shape "
                            f"{spinfo.shape} (transpose={transpose})")
        rows = spinfo.shape[1] if transpose else spinfo.shape[0]
        return ShapedArray((rows, *x.shape[1:]), data.dtype)
    return rule


def _product_transpose(prim):
    def rule(ct, data, row, col, x, *, spinfo, transpose):
        if ad.is_undefined(row) or ad.is_undefined(col):
            raise ValueError("Cannot transpose with respect to sparse indices")
        if ad.is_undefined(x):
            if type(ct) is ad.Zero:
                return [None, None, None, ad.Zero(x.aval)]
            return [None, None, None, prim.bind(data, row, col, ct, spinfo=spinfo,
                                                transpose=not transpose)]
        if type(ct) is ad.Zero:
            return [ad.Zero(data.aval), None, None, None]
        # d(data[k]) = ct[row[k]] . x[col[k]]: the outer product ct x^T read at the indices
        out_row, in_col = (col, row) if transpose else (row, col)
        picked = jnp.asarray(ct)[out_row] * jnp.asarray(x)[in_col]
        return [picked.reshape(picked.shape[0], -1).sum(1), None, None, None]
    return rule


for _prim, _ndim in ((coo_matvec_p, 1), (coo_matmat_p, 2)):
    abstract_eval_rules[_prim] = _product_abstract_eval(_ndim)
    lowering_rules[_prim] = hl.lower_fun(_product_impl)
    numpy_rules[_prim] = hl.numpy_fun(_product_impl)
    ad.defjvp(_prim,
              lambda t, ans, data, row, col, x, _p=_prim, **params: _p.bind(t, row, col, x,
                                                                            **params),
              None, None,
              lambda t, ans, data, row, col, x, _p=_prim, **params: _p.bind(data, row, col, t,
                                                                            **params))
    transpose_rules[_prim] = _product_transpose(_prim)
    batching_rules[_prim] = mapped_definition(_product_impl)


def coo_matvec(mat: COO, v, transpose: bool = False):
    """Product of COO sparse matrix and a dense vector."""
    return _coo_matvec(*mat._bufs, v, spinfo=mat._info, transpose=transpose)


def coo_matmat(mat: COO, B, *, transpose: bool = False):
    """Product of COO sparse matrix and a dense matrix."""
    return _coo_matmat(*mat._bufs, B, spinfo=mat._info, transpose=transpose)


def _coo_matvec(data, row, col, v, *, spinfo, transpose: bool = False):
    """`coo_matvec` of the COO matrix of buffers (data, row, col) and `spinfo` (a COOInfo)."""
    return coo_matvec_p.bind(data, row, col, jnp.asarray(v), spinfo=spinfo,
                             transpose=bool(transpose))


def _coo_matmat(data, row, col, B, *, spinfo, transpose: bool = False):
    """`coo_matmat` of the COO matrix of buffers (data, row, col) and `spinfo`."""
    return coo_matmat_p.bind(data, row, col, jnp.asarray(B), spinfo=spinfo,
                             transpose=bool(transpose))


# ------------------------------------------------------------------ COO
@register_pytree_node_class
class COO(JAXSparse):
    """Experimental COO matrix implemented in JAX (prefer
    :class:`jax.experimental.sparse.BCOO`).

    >>> COO((jnp.array([1., 2.]), jnp.array([0, 1]), jnp.array([1, 0])), shape=(2, 2)).todense()
    Array([[0., 1.],
           [2., 0.]], dtype=float32)
    """
    n_batch = 0          # (a plain 2-D format: JAXSparse's repr and properties ask)
    n_dense = 0

    def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
        self.data, self.row, self.col = map(jnp.asarray, args)
        self._rows_sorted = rows_sorted
        self._cols_sorted = cols_sorted
        super().__init__(args, shape=shape)

    @property
    def _info(self) -> COOInfo:
        return COOInfo(self.shape, self._rows_sorted, self._cols_sorted)

    @property
    def _bufs(self):
        return (self.data, self.row, self.col)

    @property
    def nse(self) -> int:
        return self.data.size

    @classmethod
    def fromdense(cls, mat, *, nse: int | None = None, index_dtype=np.int32) -> COO:
        return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

    def _sort_indices(self) -> COO:
        """A copy with indices sorted by row, then column (`self` if rows are sorted)."""
        if self._rows_sorted:
            return self
        row, col, data = lax.sort((self.row, self.col, self.data), num_keys=2)
        return type(self)((data, row, col), shape=self.shape, rows_sorted=True)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> COO:
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(f"COO must have ndim=2; got shape={shape}")
        index = jnp.zeros(0, index_dtype)
        return cls((jnp.zeros(0, dtype), index, index), shape=shape, rows_sorted=True,
                   cols_sorted=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> COO:
        diag_size = min(N, M - k) if k > 0 else min(N + k, M)
        if diag_size <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
        idx = jnp.arange(diag_size, dtype=index_dtype)
        return cls((jnp.ones(diag_size, dtype), idx - min(k, 0), idx + max(k, 0)),
                   shape=(N, M), rows_sorted=True, cols_sorted=True)

    def todense(self):
        return coo_todense(self)

    def transpose(self, axes=None) -> COO:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return COO((self.data, self.col, self.row), shape=self.shape[::-1],
                   rows_sorted=self._cols_sorted, cols_sorted=self._rows_sorted)

    def tree_flatten(self):
        return (self.data, self.row, self.col), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.data, obj.row, obj.col = children
        if aux_data.keys() != {"shape", "rows_sorted", "cols_sorted"}:
            raise ValueError(f"COO.tree_unflatten: invalid aux_data={aux_data!r}")
        obj.shape = aux_data["shape"]
        obj._rows_sorted = aux_data["rows_sorted"]
        obj._cols_sorted = aux_data["cols_sorted"]
        return obj

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            raise NotImplementedError("matmul between two sparse objects.")
        data, other = promote_dtypes(self.data, jnp.asarray(other))
        promoted = COO((data, self.row, self.col), **self._info._asdict())
        if other.ndim == 1:
            return coo_matvec(promoted, other)
        if other.ndim == 2:
            return coo_matmat(promoted, other)
        raise NotImplementedError(f"matmul with object of shape {other.shape}")
