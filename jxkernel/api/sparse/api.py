"""The format-independent functions of `jax.experimental.sparse` (JAX's `sparse.api`):
`todense` (a primitive, so that inside `sparsify` it densifies a sparse value), `empty` and
`eye`, for every format (BCOO, BCSR, COO, CSR, CSC; `eye` has no BCSR, as JAX's).

    >>> eye(2).todense()
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
"""
from __future__ import annotations

import operator

from ... import numpy as jnp
from ...core.avals import ShapedArray, get_aval
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, transpose_rules)
from ...lax import _lowering as hl
from ...transforms import ad_util as ad
from ...transforms.batching import vmap
from ...tree_util import tree_flatten, tree_unflatten
from ._base import JAXSparse
from .bcoo import BCOO, _bcoo_extract
from .bcsr import BCSR, _bcsr_extract
from .coo import COO, _coo_extract
from .csr import CSC, CSR, _csr_extract

# ------------------------------------------------------------------ todense
todense_p = Primitive("todense")


def _todense_impl(*bufs, tree):
    arr = tree_unflatten(tree, list(bufs))
    return arr.todense() if isinstance(arr, JAXSparse) else arr


def _todense_abstract_eval(*bufs, tree):
    arr = tree_unflatten(tree, list(bufs))
    if isinstance(arr, ShapedArray):
        return arr
    data = arr.data if isinstance(arr.data, ShapedArray) else get_aval(arr.data)
    return ShapedArray(arr.shape, arr.dtype, weak_type=data.weak_type)


def _todense_jvp(primals, tangents, *, tree):
    out = todense_p.bind(*primals, tree=tree)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero(get_aval(out))
    return out, todense_p.bind(tangents[0], *primals[1:], tree=tree)


def _todense_transpose(ct, *bufs, tree):
    if any(ad.is_undefined(b) for b in bufs[1:]):
        raise ValueError("Cannot transpose with respect to sparse indices")
    standin = object()
    obj = tree_unflatten(tree, [standin] * len(bufs))
    if type(ct) is ad.Zero:
        return [ad.Zero(bufs[0].aval)] + [None] * (len(bufs) - 1)
    if obj is standin:
        return [ct]
    if isinstance(obj, BCOO):
        return [_bcoo_extract(bufs[1], ct), None]
    if isinstance(obj, BCSR):
        return [_bcsr_extract(bufs[1], bufs[2], ct), None, None]
    if isinstance(obj, COO):
        return [_coo_extract(bufs[1], bufs[2], ct), None, None]
    if isinstance(obj, CSR):        # (JAX has no CSR or CSC case here)
        return [_csr_extract(bufs[1], bufs[2], ct), None, None]
    if isinstance(obj, CSC):
        return [_csr_extract(bufs[1], bufs[2], jnp.asarray(ct).T), None, None]
    raise NotImplementedError(f"todense_transpose for {type(obj)}")


def _todense_batching(vals, dims, *, tree):
    return vmap(lambda *b: _todense_impl(*b, tree=tree), tuple(dims))(*vals), 0


abstract_eval_rules[todense_p] = _todense_abstract_eval
lowering_rules[todense_p] = hl.lower_fun(_todense_impl)
numpy_rules[todense_p] = hl.numpy_fun(_todense_impl)
jvp_rules[todense_p] = _todense_jvp
transpose_rules[todense_p] = _todense_transpose
batching_rules[todense_p] = _todense_batching


def todense(arr):
    """Convert input to a dense matrix. If input is already dense, pass through."""
    bufs, tree = tree_flatten(arr)
    return todense_p.bind(*bufs, tree=tree)


# ------------------------------------------------------------------ constructors
_FORMATS = {"bcsr": BCSR, "bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}


def _format(sparse_format):
    if sparse_format not in _FORMATS:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of "
                         f"{list(_FORMATS)}")
    return _FORMATS[sparse_format]


def empty(shape, dtype=None, index_dtype="int32", sparse_format: str = "bcoo", **kwds):
    """Create an empty sparse array (every element an implicit zero; `nse=` keyword gives
    it that many padding slots)."""
    return _format(sparse_format)._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype,
                                         **kwds)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, index_dtype="int32",
        sparse_format: str = "bcoo", **kwds):
    """Create 2D sparse identity matrix: ones on the k-th diagonal of an N x M array."""
    M = N if M is None else M
    if sparse_format == "bcsr":     # JAX's eye has no BCSR (its formats: bcoo, coo, csr, csc)
        raise KeyError(sparse_format)
    return _format(sparse_format)._eye(operator.index(N), operator.index(M), operator.index(k),
                                       dtype=dtype, index_dtype=index_dtype, **kwds)
