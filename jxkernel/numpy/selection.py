"""Selecting where a condition holds: nonzero, flatnonzero, argwhere, `where` (one argument:
nonzero; three: elementwise), extract and compress, with JAX's `size=`/`fill_value=` for results
whose length depends on the data.

    >>> jnp.nonzero(jnp.array([0, 5, 0, 7]), size=3, fill_value=-1)
    (Array([ 1,  3, -1], dtype=int32),)

Without `size`, data-dependent shapes need concrete (not traced) inputs, as in JAX.
"""
from __future__ import annotations

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import index_or_symbolic, is_symbolic, min_dim, symbolic_as_value
from ..core.interpreter_primitives import typed_constant
from . import util
from .creation import _shape as _checked_shape, arange, ones
from .indexing import _IndexUpdateHelper, getitem
from .manipulation import _slice_axis, moveaxis, ravel, tril, triu
from .reductions import _where, cumsum, sum as _sum
from .sorting import _asarray, _ravel, _shape
from .ufuncs import floor_divide, remainder
from .util import aval_of, check_arraylike, concrete_value, ensure_array

__all__ = ["nonzero", "flatnonzero", "argwhere", "where", "extract", "compress",
           "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from"]

def nonzero(a, *, size: int | None = None, fill_value=None) -> tuple:
    """Indices of the nonzero elements, one array per axis. With `size`, exactly that many
    (padded with `fill_value`, or index 0); without it `a` must be concrete.

    >>> jnp.nonzero(jnp.array([[0, 1], [2, 0]]))
    (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))
    """
    arr = _asarray("nonzero", a)
    shape = _shape(arr)
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    d = aval_of(arr).dtype
    mask = arr if d == np.bool_ else lax.ne(arr, typed_constant(0, d))
    it = dtypes.default_int_dtype()
    if size is None:
        value = concrete_value(mask)
        if value is None:      # as JAX's, the count (int32[]) is what is not concrete
            raise ConcretizationTypeError(
                lax.reduce_sum(lax.convert_element_type(mask, it), tuple(range(len(shape)))),
                "The size argument of jnp.nonzero must be statically specified to use "
                "jnp.nonzero within JAX transformations.\n")
        size = int(value.sum())
    else:
        size = index_or_symbolic(size)      # (a symbolic size stays one, as JAX's)
    if any(d == 0 for d in shape) or size == 0:
        return tuple(lax.broadcast_in_dim(typed_constant(0, it), (size,), ()) for _ in shape)
    # JAX's scan-free algorithm: the k-th nonzero's flat index is how many positions have
    # a running count of nonzeros <= k; through jnp's cumsum, bincount, floor_divide and
    # remainder (jits of their own), as JAX 0.10.2 builds it, so make_jaxpr prints its text
    from .statistics import bincount   # histograms and counts: loaded on first use
    flat_indices = cumsum(bincount(cumsum(mask), length=size))
    strides = np.cumprod(shape[::-1])[::-1] // shape
    if not any(map(is_symbolic, strides)):
        strides = strides.astype(aval_of(flat_indices).dtype)
    out = [remainder(floor_divide(flat_indices, symbolic_as_value(stride)), symbolic_as_value(n))
           for stride, n in zip(strides, shape)]
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
        if len(fills) != len(shape) or any(np.shape(f) != () for f in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; "
                             f"got {fill_value}")
        pad = lax.ge(arange(size), _sum(mask))
        out = [_where(pad, f, o) for f, o in zip(fills, out)]
    return tuple(out)


def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """Indices of the nonzero elements of the flattened array (through jnp.ravel, as JAX's:
    a string is refused by its jit, in its words)."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size: int | None = None, fill_value=None):
    """Indices of the nonzero elements as rows: shape (count or size, a.ndim)."""
    a = _asarray("argwhere", a)
    ndim = len(_shape(a))
    result = nonzero(lax.reshape(a, (1,)) if ndim == 0 else a, size=size, fill_value=fill_value)
    n = _shape(result[0])[0]
    if ndim == 0:
        return lax.broadcast_in_dim(typed_constant(0, aval_of(result[0]).dtype), (n, 0), ())
    return lax.concatenate([lax.reshape(r, (n, 1)) for r in result], 1)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """x where condition else y; with one argument, the indices of nonzero elements.

    >>> jnp.where(jnp.arange(3) > 0, 1.0, 0.0)
    Array([0., 1., 1.], dtype=float32, weak_type=True)
    """
    if x is None and y is None:
        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    # JAX's check, before its jit: a token or a missing argument is refused here; text
    # passes on to the jit's error
    check_arraylike("where", *util.passing_text((condition, x, y)))
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    if x is None or y is None:
        raise ValueError(f"Either both or neither of the x and y arguments should be provided "
                         f"to jax.numpy.where, got {x} and {y}.")
    return util.where(condition, x, y)     # (not reductions._where: JAX nests a jit here)


def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """The elements of `arr` where `condition` is true (flattened), padded to `size`."""
    # (JAX's check names the function "extreact", and passes a string to jnp.ravel's jit)
    check_arraylike("extreact", *util.passing_text((condition, arr, fill_value)))
    # as JAX: compress of the raveled two, which truncates both to the shorter (no error for a
    # condition of another size)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def _take_fill(arr, idx, fill_value):
    return _IndexUpdateHelper(arr)[idx].get(mode="fill", fill_value=fill_value)


def compress(condition, a, axis: int | None = None, *, size: int | None = None,
             fill_value=0, out=None):
    """The slices of `a` along `axis` where the 1-D `condition` is true."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    check_arraylike("compress", condition, a)
    cond, arr = ensure_array(condition), ensure_array(a)
    if len(_shape(cond)) != 1:
        raise ValueError("condition must be a 1D array")
    if aval_of(cond).dtype != np.bool_:
        cond = lax.ne(cond, typed_constant(0, aval_of(cond).dtype))
    if axis is None:
        axis, arr = 0, _ravel(arr)
    arr = moveaxis(arr, axis, 0)
    n = _shape(arr)[0]
    if size is None:
        # as JAX: entries past the axis are an error only where one of them is true, tested
        # (without `size`) even where there are none, so under jit it raises JAX's
        # TracerBoolConversionError whatever the condition (a traced reduction of it)
        extra = _slice_axis(cond, min(n, _shape(cond)[0]), _shape(cond)[0], 0)
        if bool(lax.reduce_or(extra, (0,))):
            raise ValueError("condition contains entries that are out of bounds")
    if _shape(cond)[0] > n:
        cond = _slice_axis(cond, 0, n, 0)
    elif _shape(cond)[0] < n:               # a shorter condition truncates the array
        arr = _slice_axis(arr, 0, _shape(cond)[0], 0)
        n = _shape(cond)[0]
    if size is None:
        out_ = getitem(arr, nonzero(cond)[0])
    elif not 0 <= size <= n:        # JAX's refusal (its sort-and-cut has no more slices)
        raise ValueError(f"size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={n}")
    else:
        idx, = nonzero(cond, size=size, fill_value=n)
        out_ = _take_fill(arr, idx, fill_value)
    return moveaxis(out_, 0, axis)


# ------------------------------------------------------------------ triangle indices
# (JAX's: the nonzeros of a triangle, through nonzero for a symbolic size)
def _triu_size(n, m, k):
    """How many elements an (n, m) array has on and above its k-th diagonal (JAX's
    expression, for symbolic sizes)."""
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = min_dim(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def _tri_indices(n, k, m, lower: bool) -> tuple:
    n, k = index_or_symbolic(n), index_or_symbolic(k)
    m = n if m is None else index_or_symbolic(m)
    if is_symbolic(n) or is_symbolic(k) or is_symbolic(m):
        # JAX's: the nonzeros of the triangle, as many as its size (symbolic)
        if lower:
            return nonzero(tril(ones((n, m)), k=k), size=_triu_size(m, n, -k))
        return nonzero(triu(ones((n, m)), k=k), size=_triu_size(n, m, k))
    _checked_shape((n, m))      # JAX's: the triangle of ones((n, m)), whose check refuses n < 0
    rows, cols = np.tril_indices(n, k, m) if lower else np.triu_indices(n, k, m)
    dt = dtypes.default_int_dtype()
    return ensure_array(rows.astype(dt)), ensure_array(cols.astype(dt))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the lower triangle (on and below diagonal k) of an n x m array."""
    return _tri_indices(n, k, m, True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the upper triangle (on and above diagonal k) of an n x m array."""
    return _tri_indices(n, k, m, False)


def tril_indices_from(arr, k: int = 0) -> tuple:
    shape = aval_of(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr, k: int = 0) -> tuple:
    shape = aval_of(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return triu_indices(shape[0], k, shape[1])
