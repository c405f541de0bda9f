"""jax.ops: reductions over segments, as in JAX (one scatter each).

    >>> segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 1, 2]), num_segments=3)
    Array([1, 5, 4], dtype=int32)

`data[i]` goes into segment `segment_ids[i]`; ids outside [0, num_segments) are dropped
(negative ones too: they are not counted from the end). An empty segment holds the
reduction's identity (0, 1, the dtype's lowest or highest value). `num_segments` must be
static under jit; without it, it is `max(segment_ids) + 1`, read from concrete ids.
`bucket_size` sums (or multiplies, ...) in buckets of that many rows first, for accuracy.
"""
from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.symbolic import is_symbolic
from ..core.trace import Tracer
from ..lax.sharding import canonicalize_sharding
from ..numpy.indexing import _scatter_update
from ..numpy.util import check_arraylike

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(scatter_op, dtype):
    if scatter_op is lax.scatter_add:
        return 0
    if scatter_op is lax.scatter_mul:
        return 1
    if dtype == dtypes.bool_:
        return scatter_op is lax.scatter_min
    if dtypes.is_int(dtype):
        info = dtypes.iinfo(dtype)
        return info.max if scatter_op is lax.scatter_min else info.min
    return float("inf") if scatter_op is lax.scatter_min else -float("inf")


def _segment_update(name, data, segment_ids, scatter_op, num_segments, indices_are_sorted,
                    unique_indices, bucket_size, reducer, mode, out_sharding=None):
    check_arraylike(name, data, segment_ids)
    mode = lax.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    dtype = data.dtype
    if num_segments is None:
        if isinstance(segment_ids, Tracer):
            raise ConcretizationTypeError(
                segment_ids, f"{name}() needs `num_segments` when segment_ids is traced (the "
                f"number of segments is the result's shape): pass it as a static int")
        num_segments = int(np.max(np.asarray(segment_ids))) + 1
    if isinstance(num_segments, Tracer):
        raise ConcretizationTypeError(num_segments, f"{name}() `num_segments` argument must be "
                                                    f"a static int")
    # (a symbolic size stays one under jax.export, as JAX's concrete_dim_or_error keeps it)
    num_segments = num_segments if is_symbolic(num_segments) else int(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    identity = _identity(scatter_op, dtype)
    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], identity, dtype=dtype)
        return _scatter_update(out, segment_ids, data, scatter_op, indices_are_sorted,
                               unique_indices, normalize_indices=False, mode=mode,
                               out_sharding=out_sharding)
    if out_sharding is not None:        # (as JAX 0.10.2's)
        raise NotImplementedError(f"{name}(bucket_size=..., out_sharding=...)")
    num_buckets = -(-segment_ids.size // bucket_size)       # (exact for symbolic sizes)
    out = jnp.full((num_buckets, num_segments) + data.shape[1:], identity, dtype=dtype)
    out = _scatter_update(out, np.index_exp[jnp.arange(segment_ids.shape[0]) // bucket_size,
                                            segment_ids[None, :]],
                          data, scatter_op, indices_are_sorted, unique_indices,
                          normalize_indices=False, mode=mode)
    return reducer(out, axis=0).astype(dtype)


def _no_unreduced(out_sharding, name: str, word: str):
    """`out_sharding` canonical; JAX's NotImplementedError where it has unreduced axes."""
    out_sharding = canonicalize_sharding(out_sharding, name)
    if out_sharding is not None and out_sharding.spec.unreduced:
        raise NotImplementedError(f"unreduced for {word} is not yet supported.")
    return out_sharding


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The sum of `data`'s rows per segment (0 where a segment is empty)."""
    return _segment_update("segment_sum", data, segment_ids, lax.scatter_add, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, jnp.sum, mode,
                           canonicalize_sharding(out_sharding, "segment_sum"))


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The product of `data`'s rows per segment (1 where a segment is empty)."""
    return _segment_update("segment_prod", data, segment_ids, lax.scatter_mul, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, jnp.prod, mode,
                           _no_unreduced(out_sharding, "segment_prod", "prod"))


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The maximum of `data`'s rows per segment (the dtype's lowest value, -inf for floats,
    where a segment is empty)."""
    return _segment_update("segment_max", data, segment_ids, lax.scatter_max, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, jnp.max, mode,
                           _no_unreduced(out_sharding, "segment_max", "max"))


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """The minimum of `data`'s rows per segment (the dtype's highest value, inf for floats,
    where a segment is empty)."""
    return _segment_update("segment_min", data, segment_ids, lax.scatter_min, num_segments,
                           indices_are_sorted, unique_indices, bucket_size, jnp.min, mode,
                           _no_unreduced(out_sharding, "segment_min", "min"))
