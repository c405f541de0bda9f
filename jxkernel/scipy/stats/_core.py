"""Summary statistics of jax.scipy.stats: mode, rankdata, sem.

    >>> rankdata(jnp.array([3., 1., 2.]))
    Array([3., 1., 2.], dtype=float32)
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core import dtypes
from ...numpy.util import (
    canonicalize_axis,
    check_arraylike,
    jnp_jit,
    promote_args_inexact,
)
from ...transforms.batching import vmap
from ...transforms.jit.namesakes import jax_jitted


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(nan_policy, name):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function.")


@jax_jitted
@jnp_jit(static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """The most common value along `axis` (the smallest on ties) and its count.

    >>> mode(jnp.array([1, 2, 2, 3]))
    ModeResult(mode=Array(2, dtype=int32), count=Array(2, dtype=int32))
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    if axis is None:
        out_shape = tuple(1 for _ in x.shape) if keepdims else ()
        axis, x = 0, x.ravel()
    elif keepdims:
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape))
    else:
        out_shape = tuple(s for i, s in enumerate(x.shape) if i != axis)

    def one_column(col):
        if col.size == 0:
            nan = jnp.array(np.nan, dtype=dtypes.default_float_dtype())
            return nan, jnp.array(0, dtype=dtypes.default_float_dtype())
        vals, counts = jnp.unique(col, return_counts=True, size=col.size)
        return vals[jnp.argmax(counts)], counts.max()

    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap(one_column, in_axes=1)(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


@jax_jitted
@jnp_jit(static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate"):
    """Ranks (1-based, default float dtype) of the data; ties by `method`: 'average', 'min',
    'max', 'dense' or 'ordinal'; all NaN if a NaN is present."""
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = dtypes.default_float_dtype()

    def ranks(a):
        arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
        inv = _invert_permutation(sorter)
        if method == "ordinal":
            return (inv + 1).astype(out_dtype)
        first = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
        dense = first.cumsum()[inv]
        if method == "dense":
            return dense.astype(out_dtype)
        # count[j]: how many elements sort before the j-th distinct value
        count = jnp.nonzero(first, size=arr.size + 1, fill_value=first.size)[0].astype(out_dtype)
        if method == "max":
            return count[dense]
        if method == "min":
            return count[dense - 1] + 1
        return .5 * (count[dense] + count[dense - 1] + 1)

    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype),
                    ranks, a)


@jax_jitted
@jnp_jit(static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False):
    """The standard error of the mean, std(ddof) / sqrt(n).

    >>> sem(jnp.array([1., 2., 3., 4.]))
    Array(0.64549726, dtype=float32)
    """
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
