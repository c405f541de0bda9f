"""Counting and binning: bincount, digitize, histogram, histogram_bin_edges, histogram2d,
histogramdd; and covariance: cov, corrcoef.

    >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
    Array([1, 2, 0, 1], dtype=int32)
    >>> jnp.histogram(jnp.array([0., 1., 1., 2.]), bins=2)[0]
    Array([1., 3.], dtype=float32)

Counts are scatter-adds into a zero array, so the number of bins must be static: under jit,
bincount needs `length=` (as in JAX), and integer `bins` of histogram must be concrete.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import index_or_symbolic
from ..core.avals import get_aval, parts_of
from ..core.sharding_types import ShardingTypeError, with_axis_types
from ..core.trace import Tracer
from ..lax.sharding import canonicalize_sharding
from ..xla.array import Array
from . import reductions, ufuncs, util
from .calculus import diff
from .creation import _concrete, asarray, full, ones_like, zeros, zeros_like
from .index_tricks import diag, ix_, ravel_multi_index
from .manipulation import atleast_2d, concatenate, reshape, transpose
from .products import dot
from .ranges import linspace
from .sorting import searchsorted
from .util import aval_of, check_arraylike, ensure_arraylike, jnp_jit

__all__ = ["bincount", "digitize", "histogram", "histogram_bin_edges", "histogram2d",
           "histogramdd", "cov", "corrcoef"]


# ------------------------------------------------------------------ bincount, digitize
def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None,
             out_sharding=None):
    """How many times each non-negative int occurs in `x` (or the sum of its `weights`).
    Negative entries count as 0 and entries >= length are dropped; under jit pass a static
    `length`, since the output size would otherwise depend on the values.

    >>> jnp.bincount(jnp.array([1, 1, 4]), length=3)
    Array([0, 2, 0], dtype=int32)
    """
    check_arraylike("bincount", x)
    x = asarray(x)      # (as JAX's ensure_arraylike: NumPy data typed by set_mesh's mesh)
    if aval_of(x).dtype == dtypes.bool_:
        x = lax.convert_element_type(x, np.int32)
    if not dtypes.issubdtype(aval_of(x).dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got "
                        f"{aval_of(x).dtype}")
    if aval_of(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(_concrete(
        minlength, "The error occurred because of argument 'minlength' of jnp.bincount."))
    if length is None:
        if isinstance(x, Tracer) and x.to_concrete_value() is None:
            raise ConcretizationTypeError(
                x, "The error occurred because of argument 'x' of jnp.bincount. To avoid "
                   "this error, pass a static `length` argument.\n")
        values = np.asarray(_concrete(x, "The error occurred because of argument 'x' of "
                                         "jnp.bincount."))
        if values.size and not dtypes.is_canonical(aval_of(x).dtype):
            reductions.max(x)   # JAX's x.max(): an int64 x without x64 ('allow') fails there
        length = max(minlength, values.size and int(max(0, values.max())) + 1)
    else:
        length = index_or_symbolic(_concrete(  # (a symbolic size stays one, as JAX's)
            length, "The error occurred because of argument 'length' of jnp.bincount."))
    if weights is None:
        weights = np.array(1, dtypes.default_int_dtype())
    else:
        x_type, w_type = aval_of(x), get_aval(weights)    # (JAX's typeof: no list, no string)
        # typed over one mesh, x and weights must be split alike (JAX's typeof of host
        # weights names no mesh: they are not checked so, x being made an array first)
        w_typed = w_type.split if isinstance(weights, (Array, Tracer)) else None
        if np.shape(weights) != x_type.shape or x_type.split is not None and \
                w_typed is not None and parts_of(x_type) != parts_of(w_type):
            raise ValueError(f"type of weights must match type of x. Got typeof(x)="
                             f"{with_axis_types(x_type, True)} and typeof(weights)="
                             f"{with_axis_types(w_type, True)}")
    out_sharding = canonicalize_sharding(out_sharding, "jnp.bincount")
    if out_sharding is not None and not _replicated_or_unreduced(out_sharding):
        raise ShardingTypeError("out_sharding passed to `jnp.bincount` can only be fully "
                                "replicated or fully unreduced along all mesh axes")
    return zeros(length, aval_of(weights).dtype).at[ufuncs.clip(x, 0)].add(
        weights, mode="drop", out_sharding=out_sharding)


def _replicated_or_unreduced(sharding) -> bool:
    """JAX's is_replicated_or_unreduced: no dimension split, and unreduced over no mesh axis
    or all of them."""
    spec = sharding.spec
    return not spec._parts and not spec.reduced and \
        (not spec.unreduced or spec.unreduced == set(sharding.mesh.axis_names))


@jax_jitted
@jnp_jit(static_argnames=("right", "method"))
def digitize(x, bins, right: bool = False, *, method: str | None = None):
    """The index of the bin of `bins` (increasing or decreasing) each value of `x` falls in.

    >>> jnp.digitize(jnp.array([0.5, 1.5, 9.]), jnp.array([0., 1., 2.]))
    Array([1, 2, 3], dtype=int32)
    """
    x, bins = ensure_arraylike("digitize", x, bins)
    right = bool(_concrete(right, "It arose in the argument 'right' of jnp.digitize()"))
    if aval_of(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = aval_of(bins).shape[0]
    if n == 0:
        return zeros_like(x, dtype=np.int32)
    kw = {"side": "left" if right else "right"}
    if method is not None:
        kw["method"] = method
    return util.where(bins[-1] >= bins[0], searchsorted(bins, x, **kw),
                      n - searchsorted(bins[::-1], x, **kw))


# ------------------------------------------------------------------ histograms
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of the bins `histogram` would use: `bins` itself when it is an array,
    else bins+1 evenly spaced points over `range` (default: the data's min to max).

    >>> jnp.histogram_bin_edges(jnp.array([1., 3.]), bins=2)
    Array([1., 2., 3.], dtype=float32)
    """
    del weights                     # only string `bins` (not supported) would use them
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = asarray(a)
    dtype = dtypes.to_inexact_dtype(aval_of(arr).dtype)
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=dtype)
    nbins = operator.index(_concrete(bins, "bins argument of histogram_bin_edges"))
    if range is None:
        range = [arr.min(), arr.max()]
    range = asarray(range, dtype=dtype)
    if aval_of(range).shape != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    flat = reductions.ptp(range) == 0            # an empty range widens to width 1
    lo = util.where(flat, range[0] - 0.5, range[0])
    hi = util.where(flat, range[1] + 0.5, range[1])
    return linspace(lo, hi, nbins + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """(counts, bin_edges) of the values of `a`: the last bin includes its right edge.

    >>> jnp.histogram(jnp.array([1., 2., 2., 3.]), bins=2, range=(0, 4))
    (Array([1., 3.], dtype=float32), Array([0., 2., 4.], dtype=float32))
    """
    if weights is None:
        a, _ = ensure_arraylike("histogram", a, bins)
        a, = util.promote_dtypes_inexact(a)
        weights = ones_like(a)
    else:
        a, _, weights = ensure_arraylike("histogram", a, bins, weights)
        if aval_of(a).shape != aval_of(weights).shape:
            raise ValueError("weights should have the same shape as a.")
        a, weights = util.promote_dtypes_inexact(a, weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    n = aval_of(edges).shape[0]
    idx = searchsorted(edges, a, side="right")
    idx = util.where(a == edges[-1], n - 1, idx)
    # slot 0 collects values left of the first edge; values right of the last are dropped
    counts = zeros(n, aval_of(weights).dtype).at[idx].add(weights)[1:]
    if density:
        counts = counts / diff(edges) / counts.sum()
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """(counts, x_edges, y_edges) of the points (x, y); `bins` is one spec for both axes or
    a pair.

    >>> jnp.histogram2d(jnp.array([0., 1.]), jnp.array([0., 1.]), bins=2)[0]
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    x, y = ensure_arraylike("histogram2d", x, y)
    try:
        nspec = len(bins)
    except TypeError:
        nspec = 1
    if nspec not in (1, 2):           # one array of edges for both axes
        bins = [asarray(bins), asarray(bins)]
    hist, edges = histogramdd(transpose(asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """(counts, [edges per dimension]) of N points in D dimensions (`sample` is (N, D)).

    >>> jnp.histogramdd(jnp.array([[0., 0.], [1., 1.]]), bins=2)[0]
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    if weights is None:
        sample, = util.promote_dtypes_inexact(ensure_arraylike("histogramdd", sample))
    else:
        sample, weights = ensure_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = util.promote_dtypes_inexact(sample, weights)
    N, D = aval_of(sample).shape
    if range is not None and (len(range) != D or any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs "
                         f"or Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = D * [bins]
    else:
        if len(per_dim) != D:
            raise ValueError("should be a bin for each dimension.")
    indices, edges = [], []
    for i in builtins.range(D):
        col = sample[:, i]
        e = histogram_bin_edges(col, per_dim[i], None if range is None else range[i], weights)
        idx = searchsorted(e, col, side="right")
        indices.append(util.where(col == e[-1], idx - 1, idx))
        edges.append(e)
    # one extra bin on each side of every axis for outliers, cut away at the end
    nbins = tuple(aval_of(e).shape[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[D * (slice(1, -1),)]
    if density:
        hist = hist.astype(aval_of(sample).dtype)
        hist = hist / hist.sum()
        for width in ix_(*(diff(e) for e in edges)):
            hist = hist / width
    return hist, edges


# ------------------------------------------------------------------ cov, corrcoef
@jax_jitted
@jnp_jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights=None, aweights=None, dtype=None):
    """Covariance matrix of the variables in the rows of `m` (columns if not rowvar), with
    optional integer frequency weights and observation weights.

    >>> jnp.cov(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
    Array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    if y is not None:
        m, y = util.promote_args_inexact("cov", m, y)
        if aval_of(y).ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = util.promote_args_inexact("cov", m)
    if aval_of(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype}")
    X = atleast_2d(m)
    if not rowvar and aval_of(m).ndim != 1:
        X = X.T
    if aval_of(X).shape[0] == 0:
        return asarray(np.zeros((0, 0), dtypes.default_float_dtype()))
    if y is not None:
        Y = atleast_2d(y)
        if not rowvar and aval_of(Y).shape[0] != 1:
            Y = Y.T
        X = concatenate((X, Y), axis=0)
    nvar, nobs = aval_of(X).shape
    if nobs == 0:
        return full(() if nvar == 1 else (nvar, nvar), np.nan, dtype=aval_of(X).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights = _sample_weights("fweights", fweights, nobs)
        if not dtypes.issubdtype(aval_of(fweights).dtype, np.integer):
            raise TypeError("fweights must be integer.")
        w = ufuncs.abs(fweights)          # NumPy raises on negative weights; JAX takes |w|
    if aweights is not None:
        aweights = ufuncs.abs(_sample_weights("aweights", aweights, nobs))
        w = aweights if w is None else w * aweights
    if dtype is not None:
        X = X.astype(dtype)
        w = None if w is None else w.astype(dtype)
    avg, w_sum = reductions.average(X, axis=1, weights=w, returned=True)
    if w is None:
        f = nobs - ddof
    elif ddof == 0:
        f = w_sum[0]
    elif aweights is None:
        f = w_sum[0] - ddof
    else:
        f = w_sum[0] - ddof * reductions.sum(w * aweights) / w_sum[0]
    X = X - avg[:, None]
    XwT = X.T if w is None else (X * lax.broadcast_to_rank(w, 2)).T
    return ufuncs.true_divide(dot(X, XwT.conj()), f).squeeze()


def _sample_weights(name, w, nobs):
    w = ensure_arraylike("cov", w)
    if aval_of(w).ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if aval_of(w).shape[0] != nobs:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    return w


@jax_jitted
@jnp_jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """Pearson correlation coefficients: cov scaled by the standard deviations, clipped
    to [-1, 1].

    >>> jnp.corrcoef(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
    Array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    check_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype}")
    c = cov(x, y, rowvar, dtype=dtype)
    if aval_of(c).ndim == 0:
        return ufuncs.divide(c, c)     # 1, or NaN for a zero/inf/nan variance
    std = ufuncs.sqrt(ufuncs.real(diag(c))).astype(aval_of(c).dtype)
    c = c / std[:, None] / std[None, :]
    re = ufuncs.clip(ufuncs.real(c), -1, 1)
    if dtypes.issubdtype(aval_of(c).dtype, np.complexfloating):
        return lax.complex(re, ufuncs.clip(ufuncs.imag(c), -1, 1))
    return re
