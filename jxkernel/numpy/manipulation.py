"""Shape manipulation: reshape, transpose, joining and splitting, broadcasting, flips and
rolls, tiling, triangles — each a few lax ops (padding is in pad.py; repeat and diagonals,
which gather, in index_tricks.py).

    >>> jnp.stack([jnp.arange(3), jnp.ones(3, int)], axis=1).shape
    (3, 2)
    >>> [p.shape for p in jnp.split(jnp.ones((6, 2)), [1, 4])]
    [(1, 2), (3, 2), (2, 2)]

Shapes, axes and split points are static (Python ints); the values are traced.
"""
from __future__ import annotations

import builtins
import math
import operator
import sys

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes
from ..core.errors import (ConcretizationTypeError, InconclusiveDimensionOperation, aval_text,
                           shape_error, unhashable_parameter)
from ..core.symbolic import index_or_symbolic, is_symbolic
from ..core.trace import EvalTrace, Tracer, _ctx
from ..core.traceback_util import filter_before_raising, filter_raised, register_boundary
from ..core.staging import DynamicJaxprTracer
from ..core.avals import parts_of, typed_sharding
from ..core.sharding_types import abstract_sharding, broadcast_sharding
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.interpreter_primitives import typed_constant
from ..lax import conversion
from ..lax.sharding import canonicalize_sharding
from ..xla.array import Array
from . import util
from .creation import _concrete, asarray
from .util import (aval_of, canonicalize_axis, check_arraylike, ensure_array, jnp_jit,
                   passing_text)

__all__ = ["reshape", "ravel", "transpose", "permute_dims", "swapaxes", "moveaxis",
           "rollaxis", "expand_dims", "squeeze", "concatenate", "concat", "stack", "unstack",
           "hstack", "vstack", "dstack", "column_stack", "split", "array_split", "hsplit",
           "vsplit", "dsplit", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "flip",
           "fliplr", "flipud", "roll", "rot90", "tile", "tril", "triu", "atleast_1d",
           "atleast_2d", "atleast_3d", "shape", "ndim", "size", "append", "resize"]


# ------------------------------------------------------------------ small helpers
def _shape(x) -> tuple:
    return aval_of(x).shape


def _dtype(x):
    return aval_of(x).dtype


def _asarray(name: str, x):
    """An Array or tracer for an array-like argument, with JAX's TypeError for lists."""
    check_arraylike(name, x)
    return ensure_array(x)


def _index_tuple(x) -> tuple:
    """`x` (an int or a sequence of ints) as a tuple of ints; a traced `x`: JAX's
    ConcretizationTypeError (an axis of jnp.roll, expand_dims, squeeze, moveaxis), not
    "iteration over a 0-d array"."""
    x = _concrete(x, "expected a static index or sequence of indices.")
    try:
        return (operator.index(x),)
    except TypeError:
        pass
    try:
        return tuple(map(operator.index, x))
    except TypeError:
        return tuple(map(index_or_symbolic, x))      # jax.export's symbolic sizes


def _index_or_as_is(d):
    """`operator.index(d)`, or `d` as given where it is none (a symbolic size; a float count,
    which lax.tile then refuses in JAX's words), as JAX's tile reads its counts."""
    try:
        return operator.index(d)
    except TypeError:
        return d


def _lone_size(shape) -> bool:
    """Whether `shape` is one size (an int, a float, a 0-d array) rather than a sequence."""
    return not isinstance(shape, (list, tuple)) and np.ndim(shape) == 0


def _astype(x, dtype):
    return conversion.convert_element_type(x, dtypes.canonicalize_named(dtype))


def _full(shape, value, dtype, weak_type=False):
    """A constant array (broadcast of a scalar literal, as lax.full is)."""
    out = lax.broadcast_in_dim(typed_constant(value, dtype), tuple(shape), ())
    return conversion._convert_element_type(out, dtype, True) if weak_type else out


def _zeros_like(x):
    a = aval_of(x)
    return _full(a.shape, 0, a.dtype, a.weak_type)


def _slice_axis(x, start, stop, axis: int, step: int = 1):
    """x[..., start:stop:step, ...] along `axis` (Python slice semantics, step > 0)."""
    shp = _shape(x)
    lo, hi, st = builtins.slice(start, stop, step).indices(shp[axis])
    starts, limits = [0] * len(shp), list(shp)
    starts[axis], limits[axis] = lo, builtins.max(lo, hi)
    strides = None
    if st != 1:
        strides = [1] * len(shp)
        strides[axis] = st
    return lax.slice(x, starts, limits, strides)


def _index_axis(x, i: int, axis: int):
    """x[..., i, ...] along `axis` for a static i."""
    return lax.squeeze(_slice_axis(x, i, i + 1, axis), (axis,))


# ------------------------------------------------------------------ reshape & transpose
def _compute_newshape(arr_shape: tuple, newshape) -> tuple:
    """`newshape` (an int or a sequence) with its -1 (at most one) filled in, or JAX's error:
    jnp.reshape's and Array.reshape's."""
    orig = newshape
    dims = tuple(newshape) if isinstance(newshape, (list, tuple)) else (newshape,)
    for d in dims:              # a traced size: JAX's plain TypeError, not __index__'s error
        if isinstance(d, Tracer) and d.to_concrete_value() is None:
            # as JAX's message shows it: a list, a tuple, or a lone size wrapped in a list
            # (tracing.md's x.reshape(jnp.array(x.shape).prod()): "got [JitTracer(int32[])]")
            raise shape_error(dims if isinstance(newshape, tuple) else list(dims), d)
    # lax's canonicalize_shape: JAX's words for a size that is no integer, the shape as
    # given (jnp.reshape wraps a lone size in a list, as JAX's: "got [3.0]")
    newshape = lax.shapes.canonicalize_shape(
        [newshape] if _lone_size(newshape) else newshape)
    size = math.prod(arr_shape)
    neg1s = [i for i, d in enumerate(newshape) if d == -1]
    if len(neg1s) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {orig}")
    # (a symbolic size is left to lax.reshape's `d >= 0`, JAX's comparison and words when
    # inconclusive: "'a*b - c' >= '0'")
    if any(not is_symbolic(d) and d < 0 and d != -1 for d in newshape):
        raise TypeError(f"reshape new_sizes must all be non-negative, got {orig}")
    if neg1s:
        i, = neg1s
        others = math.prod(newshape[:i] + newshape[i + 1:])
        if is_symbolic(size):          # jax.export's symbolic sizes: divided as JAX's, by
            quotient, remainder = divmod(size, -others)   # the product with the -1 in it
            if remainder != 0:
                raise InconclusiveDimensionOperation(
                    f"Cannot divide evenly the sizes of shapes {tuple(arr_shape)} and "
                    f"{newshape}. The remainder {remainder} should be 0.")
            return newshape[:i] + (-quotient,) + newshape[i + 1:]
        if others == 0 or size % others:
            raise TypeError(f"cannot reshape array of shape {arr_shape} (size {size}) into "
                            f"shape {orig} because the product of specified axis sizes "
                            f"({others}) does not evenly divide {size}")
        return newshape[:i] + (size // others,) + newshape[i + 1:]
    if not any(map(is_symbolic, (*arr_shape, *newshape))) and size != math.prod(newshape):
        raise TypeError(f"cannot reshape array of shape {arr_shape} (size {size}) into shape "
                        f"{orig} (size {math.prod(newshape)})")
    return newshape


def reshape(a, shape, order: str = "C", *, copy=None, out_sharding=None):
    """`a` with a new shape of the same size; one dimension may be -1 (inferred).

    >>> jnp.reshape(jnp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    __tracebackhide__ = True  # noqa: F841  (as JAX's: IPython shows the size check's frame)
    # (`newshape=`, deprecated, is gone in JAX 0.10.2: Python's unexpected-keyword error)
    # text passes JAX's check (np.isscalar's) and reaches its jnp.asarray, which refuses it:
    # "Value 'a' with dtype <U1 is not a valid JAX array type". (A dtype's name is refused so
    # too, where JAX's asarray reads it as one: jnp.asarray('bool') is True there.)
    check_arraylike("reshape", *passing_text((a,)))
    if isinstance(a, (str, bytes)):
        a = asarray(a)
    if out_sharding is None and isinstance(a, (np.ndarray, np.generic)):
        # JAX forwards to the argument's own method: NumPy data stays NumPy (and 64-bit)
        return a.reshape(shape, order=order)
    a = ensure_array(a)
    return reshaped(a, _compute_newshape(_shape(a), shape), order, out_sharding)


def reshaped(a, new: tuple, order: str = "C", out_sharding=None):
    """jnp.reshape of an array (and its `.reshape` method) to `new`, _compute_newshape's: the
    callers check the shape in their own frame, as JAX's Array.reshape does (its traceback
    shows _reshape, then _compute_newshape)."""
    __tracebackhide__ = True  # noqa: F841
    if order == "C":
        return lax.reshape(a, new, out_sharding=out_sharding)
    if order == "F":     # read and write in column-major order: reverse dims on both sides
        ndim = len(_shape(a))
        out_sharding = canonicalize_sharding(out_sharding, "jnp.reshape")
        if out_sharding is not None:          # (the spec of the reversed result, reversed)
            spec = out_sharding.spec.partitions + (None,) * (len(new) - len(out_sharding.spec))
            out_sharding = NamedSharding(out_sharding.mesh, PartitionSpec(*spec[::-1]))
        return transpose(lax.reshape(a, new[::-1], tuple(range(ndim))[::-1],
                                     out_sharding=out_sharding))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


@jax_jitted(static_argnames=("order", "out_sharding"), inline=True)
def ravel(a, order: str = "C", *, out_sharding=None):
    """`a` flattened to one dimension.  ``jnp.ravel(jnp.ones((2, 3))).shape == (6,)``"""
    a = _asarray("ravel", a)
    if order == "K":        # JAX's own refusal, before reshape's of an order it does not know
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (-1,), order=order, out_sharding=out_sharding)


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default).

    >>> jnp.transpose(jnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    a = _asarray("transpose", a)
    ndim = len(_shape(a))
    axes = tuple(range(ndim))[::-1] if axes is None else \
        tuple(canonicalize_axis(i, ndim) for i in _index_tuple(axes))
    return lax.transpose(a, axes)


def permute_dims(a, /, axes):
    """Array API transpose: `axes` is a permutation of range(a.ndim). Unlike `transpose`,
    negative axes are refused (a TypeError), as JAX's permute_dims does."""
    return lax.transpose(_asarray("permute_dims", a), tuple(_index_tuple(axes)))


@jax_jitted(static_argnames=("axis1", "axis2"), inline=True)
def swapaxes(a, axis1: int, axis2: int):
    """`a` with axes `axis1` and `axis2` exchanged.  ``swapaxes(x, 0, -1)``"""
    a = _asarray("swapaxes", a)
    # JAX swaps the entries of a NumPy permutation: NumPy's IndexError for an axis out of
    # bounds ("index 2 is out of bounds for axis 0 with size 2", axis2's read first) or a float
    perm = np.arange(len(_shape(a)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, [int(p) for p in perm])


def moveaxis(a, source, destination):
    """`a` with axes `source` moved to positions `destination`, the others kept in order.

    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = _asarray("moveaxis", a)
    ndim = len(_shape(a))
    source, destination = _index_tuple(source), _index_tuple(destination)
    try:
        source = tuple(canonicalize_axis(i, ndim) for i in source)
        destination = tuple(canonicalize_axis(i, ndim) for i in destination)
        if len(source) != len(destination):
            raise ValueError(f"Inconsistent number of elements: {len(source)} vs "
                             f"{len(destination)}")
    except Exception as e:
        # JAX's raises these under its jit of _moveaxis, a traceback boundary: filtered, with
        # JAX's note (only on this error path)
        filter_before_raising(e, sys._getframe())
        raise
    perm = [i for i in range(ndim) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax.transpose(a, perm)


@jax_jitted(static_argnames=("axis", "start"))
def rollaxis(a, axis: int, start: int = 0):
    """NumPy's older moveaxis: axis `axis` moved to sit before position `start`."""
    a = _asarray("rollaxis", a)
    ndim = len(_shape(a))
    axis = canonicalize_axis(axis, ndim)
    start = operator.index(start)
    if not -ndim <= start <= ndim:
        raise ValueError(f"{start=} must satisfy {-ndim}<=start<={ndim}")
    if start < 0:           # counted from the end of the ndim axes, as NumPy's (not ndim + 1)
        start += ndim
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def expand_dims(a, axis):
    """`a` with size-1 axes inserted at positions `axis` of the result.

    >>> jnp.expand_dims(jnp.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    a = _asarray("expand_dims", a)
    return lax.expand_dims(a, _index_tuple(axis))


def squeeze(a, axis=None):
    """`a` without size-1 axes (all of them, or those in `axis`, which must have size 1).

    >>> jnp.squeeze(jnp.ones((1, 3, 1))).shape
    (3,)
    """
    try:          # a traceback boundary, as JAX's jit of squeeze is (no frame of its own)
        a = _asarray("squeeze", a)
        shp = _shape(a)
        if axis is None:
            if any(map(is_symbolic, shp)):        # whether a symbolic size is 1 is not known
                raise ValueError("jnp.squeeze with axis=None is not supported with shape "
                                 "polymorphism")
            axis = tuple(i for i, d in enumerate(shp) if d == 1)
        axis = tuple(canonicalize_axis(i, len(shp)) for i in _index_tuple(axis))
        if any(shp[i] != 1 for i in axis):
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={shp} and dimensions={axis}")
        return lax.squeeze(a, axis)
    except Exception as e:
        filter_raised(e)
        raise


register_boundary(squeeze.__code__)


# ------------------------------------------------------------------ joining
def _is_array(x) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray))


def _unstack(x, axis: int = 0) -> list:
    return [_index_axis(x, i, axis) for i in range(_shape(x)[axis])]


def _as_list(name, arrays) -> list:
    """The arrays of a sequence (or the slices of one array along its first axis)."""
    if _is_array(arrays):
        return _unstack(ensure_array(arrays)) if np.ndim(arrays) else [arrays]
    arrays = list(arrays)
    check_arraylike(name, *arrays)
    return arrays


def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Arrays joined along an existing axis (flattened first if axis is None).

    >>> jnp.concatenate([jnp.ones((2, 3)), jnp.zeros((1, 3))]).shape
    (3, 3)
    """
    if _is_array(arrays):
        arr = ensure_array(arrays)
        shp = _shape(arr)
        if not shp or shp[0] == 0:
            raise ValueError("Need at least one array to concatenate.")
        if dtype is not None:
            arr = _astype(arr, dtype)
        if axis is None:
            return lax.reshape(arr, (math.prod(shp),))
        if len(shp) == 1:
            raise ValueError("Zero-dimensional arrays cannot be concatenated.")
        # join the leading axis into `axis` with one reshape, as JAX does
        axis = canonicalize_axis(axis, len(shp) - 1)
        new = shp[1:axis + 1] + (shp[0] * shp[axis + 1],) + shp[axis + 2:]
        return lax.reshape(arr, new, (*range(1, axis + 1), 0, *range(axis + 1, len(shp))))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    # a duck-typed array is its __jax_array__'s value (its rank, dtype and data), as in JAX
    arrays = [util.ensure_array(a) if hasattr(a, "__jax_array__") else a for a in arrays]
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype=dtype)
    if np.ndim(arrays[0]) == 0 if not hasattr(arrays[0], "aval") else not _shape(arrays[0]):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, len(_shape(arrays[0])))
    arrays = [_astype(a, dtype) for a in arrays] if dtype is not None else \
        util.promote_dtypes(*arrays)
    # one equation, as in JAX (its lowering joins wide lists 16 at a time): eagerly one
    # compiled program, not one per group of 16
    return lax.concatenate([ensure_array(a) for a in arrays], axis)


def concat(arrays, /, *, axis: int | None = 0):
    """Array API name of concatenate."""
    check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Arrays of one shape joined along a new axis.

    >>> jnp.stack([jnp.ones(3), jnp.zeros(3)], axis=-1).shape
    (3, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if _is_array(arrays):
        arr = ensure_array(arrays)
        axis = canonicalize_axis(axis, len(_shape(arr)))
        return concatenate(expand_dims(arr, axis + 1), axis=axis, dtype=dtype)
    arrays = _as_list("stack", arrays)
    # (shapes that differ: lax.stack's errors, JAX's, which name them)
    axis = canonicalize_axis(axis, len(_shape(arrays[0])) + 1)
    arrays = [_astype(a, dtype) for a in arrays] if dtype is not None else \
        util.promote_dtypes(*arrays)
    # one stack equation, as JAX's jnp.stack: eagerly one compiled program, not an
    # expand_dims per array and a concatenate
    return lax.stack([ensure_array(a) for a in arrays], axis)


@jax_jitted(static_argnames=("axis",), inline=True)
def unstack(x, /, *, axis: int = 0) -> tuple:
    """The slices of `x` along `axis`, as a tuple.  ``len(unstack(jnp.ones((3, 2)))) == 3``"""
    x = _asarray("unstack", x)
    # lax.unstack, as JAX's: its sharding rule refuses an axis split over a mesh (slices of
    # it would each be on some devices only)
    return lax.unstack(x, canonicalize_axis(axis, len(_shape(x))))


def vstack(tup, dtype=None):
    """Arrays stacked as rows (1-D arrays become rows first).  ``vstack([a, b])``"""
    return concatenate([atleast_2d(a) for a in _as_list("vstack", tup)], 0, dtype=dtype)


def hstack(tup, dtype=None):
    """Arrays joined along axis 1 (axis 0 for 1-D arrays)."""
    arrs = [atleast_1d(a) for a in _as_list("hstack", tup)]
    return concatenate(arrs, 0 if len(_shape(arrs[0])) == 1 else 1, dtype=dtype)


def dstack(tup, dtype=None):
    """Arrays joined along a third axis (made 3-D first)."""
    return concatenate([atleast_3d(a) for a in _as_list("dstack", tup)], 2, dtype=dtype)


def column_stack(tup):
    """1-D arrays as the columns of a 2-D array; 2-D arrays joined along axis 1."""
    arrs = []
    for a in _as_list("column_stack", tup):
        a = ensure_array(a)
        arrs.append(transpose(atleast_2d(a)) if len(_shape(a)) < 2 else a)
    return concatenate(arrs, 1)


@jax_jitted(static_argnames=("axis",))
def append(arr, values, axis: int | None = None):
    """`values` joined to the end of `arr` (both flattened if axis is None)."""
    check_arraylike("append", arr, values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


# ------------------------------------------------------------------ splitting
def _split(name: str, ary, indices_or_sections, axis: int) -> list:
    ary = _asarray(name, ary)
    axis = _concrete(axis, f"in jax.numpy.{name} argument `axis`")     # (JAX's words)
    # IndexError, as JAX's (it reads ary.shape[axis] first)
    axis = canonicalize_axis(operator.index(axis), len(_shape(ary)), IndexError)
    n = _shape(ary)[axis]
    parts = indices_or_sections if isinstance(indices_or_sections, (tuple, list)) else \
        [indices_or_sections]
    for part in parts:          # the split points decide the shapes: JAX's error for a traced one
        if isinstance(part, Tracer) and part.to_concrete_value() is None:
            raise ConcretizationTypeError(part, f"in jax.numpy.{name} argument 1\n")
    if isinstance(indices_or_sections, (tuple, list)) or \
            (_is_array(indices_or_sections) and np.ndim(indices_or_sections) > 0):
        # JAX's rule, stricter than NumPy's: the split points must be in order, within [0, n]
        points = list(indices_or_sections) if isinstance(indices_or_sections, (tuple, list)) \
            and any(map(is_symbolic, indices_or_sections)) else \
            np.asarray(indices_or_sections).tolist()        # (symbolic points as they are)
        points = [0, *map(index_or_symbolic, points), n]
        sizes = [b - a for a, b in zip(points[:-1], points[1:])]
    else:
        if is_symbolic(indices_or_sections):
            raise ValueError(f"jax.numpy.{name} with a symbolic number of sections is not "
                             f"supported")
        sections = int(indices_or_sections)     # as JAX's (a known traced 2.0 too)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        part, r = divmod(n, sections)
        if r and name != "array_split":
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
        sizes = [part + 1] * r + [part] * (sections - r)
    # np.int64 sizes, as JAX's _split makes them (its jaxpr prints `sizes=(np.int64(2), ...)`)
    return list(lax.split(ary, [s if is_symbolic(s) else np.int64(s) for s in sizes], axis))


def split(ary, indices_or_sections, axis: int = 0) -> list:
    """`ary` cut into equal sections, or at the given indices, along `axis`.

    >>> [p.shape for p in jnp.split(jnp.arange(6), [1, 4])]
    [(1,), (3,), (2,)]
    """
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis: int = 0) -> list:
    """split, allowing sections of unequal size (the first ones one longer)."""
    return _split("array_split", ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections) -> list:
    """split along axis 1 (axis 0 for 1-D arrays)."""
    ary = _asarray("hsplit", ary)
    return _split("hsplit", ary, indices_or_sections, 0 if len(_shape(ary)) == 1 else 1)


def vsplit(ary, indices_or_sections) -> list:
    """split along axis 0."""
    return _split("vsplit", ary, indices_or_sections, 0)     # (JAX also takes 1-D arrays)


def dsplit(ary, indices_or_sections) -> list:
    """split along axis 2 of an array with at least 3 dimensions."""
    ary = _asarray("dsplit", ary)
    if len(_shape(ary)) < 3:        # IndexError, as JAX's (it reads ary.shape[2]); NumPy's words
        raise IndexError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", ary, indices_or_sections, 2)


# ------------------------------------------------------------------ broadcasting
def broadcast_shapes(*shapes) -> tuple:
    """The shape NumPy broadcasting gives arrays of `shapes`.

    >>> jnp.broadcast_shapes((3, 1), (4,))
    (3, 4)
    """
    if not shapes:
        return ()
    shapes = [_index_tuple(s) for s in shapes]
    rank = builtins.max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    out = []
    for sizes in zip(*padded):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            # (raised from lax's TypeError for the shapes with their ranks promoted, as JAX's:
            # a traceback shows it as the cause)
            error = ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
            error.__cause__ = TypeError(f"broadcast_shapes got incompatible shapes for "
                                        f"broadcasting: {', '.join(map(str, padded))}.")
            raise error
        out.append(big.pop() if big else 1)
    return tuple(out)


def broadcast_to(array, shape, *, out_sharding=None):
    """`array` broadcast (NumPy rules) to `shape`.

    >>> jnp.broadcast_to(jnp.arange(3), (2, 3)).shape
    (2, 3)
    """
    check_arraylike("broadcast_to", array)
    arr = ensure_array(array)
    shape = lax.shapes.canonicalize_shape(
        (shape,) if _lone_size(shape) else shape)
    if out_sharding is not None:
        out_sharding = canonicalize_sharding(out_sharding, "jnp.broadcast_to")
    arr_shape = _shape(arr)
    # (of the same shape but another type: retyped, as JAX's lax.broadcast_to)
    if arr_shape == shape and (out_sharding is None or
                               lax.shapes._typed_as(arr, out_sharding)):
        return arr
    if len(shape) < len(arr_shape):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={arr_shape} shape={shape}")
    nlead = len(shape) - len(arr_shape)
    typed = None if out_sharding is None else typed_sharding(out_sharding, len(shape))
    # a dimension split over a mesh axis stays so: the type asked must split it alike
    split = [()] * len(arr_shape) if arr.aval.split is None or typed is None else \
        parts_of(arr.aval)
    tail = [()] * len(arr_shape) if typed is None else typed.spec._axes(len(shape))[nlead:]
    if not all(d in (1, s) for d, s in zip(arr_shape, shape[nlead:])) or \
            not all(not a or a == b for a, b in zip(split, tail)):
        # (the type asked, for its text only: made unsplit and given its split after, as a
        # split that does not divide the shape is no type: ShapedArray refuses it)
        requested = arr.aval.update(shape=shape, sharding=None)
        requested.split = typed
        raise ValueError(f"Incompatible types for broadcasting: input type="
                         f"{aval_text(arr.aval)} and requested type="
                         f"{aval_text(requested, False)}")
    return lax.broadcast_in_dim(arr, shape, tuple(range(nlead, len(shape))),
                                out_sharding=out_sharding)


def broadcast_arrays(*args) -> list:
    """The arrays broadcast to their common shape (dtypes unchanged)."""
    check_arraylike("broadcast_arrays", *args)
    try:
        shp = broadcast_shapes(*(_shape(a) for a in args))
    except ValueError as e:
        # JAX's raises it under its jit of _broadcast_arrays, a traceback boundary: filtered,
        # with JAX's note (only on this error path)
        filter_before_raising(e, sys._getframe())
        raise
    # each to the type of the broadcast, as JAX's (a scalar meets a split array split alike)
    sharding = broadcast_sharding([getattr(a, "aval", None) for a in args], shp)
    return [broadcast_to(a, shp, out_sharding=sharding) for a in args]


# ------------------------------------------------------------------ flips, rolls, rotations
def flip(m, axis=None):
    """`m` reversed along `axis` (all axes by default).

    >>> jnp.flip(jnp.arange(3))
    Array([2, 1, 0], dtype=int32)
    """
    m = _asarray("flip", m)
    # (JAX's words for a traced axis: flip's own, before the index tuple's)
    axis = None if axis is None else \
        tuple(_index_tuple(_concrete(axis, "The axis argument must be known statically.")))
    if type(m) is Array and m._sharding is None and type(_ctx.trace) is EvalTrace:
        return _flip.__wrapped__(m, axis)  # eagerly one rev: ~7 µs, where the jit's call is ~10
    return _flip(m, axis)


@jnp_jit(static_argnames=("axis",))
def _flip(m, axis=None):
    # jitted as JAX's (`jit[name=_flip]` in a jaxpr), axis a static tuple
    ndim = len(_shape(m))
    axes = range(ndim) if axis is None else (canonicalize_axis(a, ndim) for a in _index_tuple(axis))
    return lax.rev(m, tuple(axes))


def fliplr(m):
    """`m` reversed along axis 1."""
    return flip(m, 1)


def flipud(m):
    """`m` reversed along axis 0."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """`a` with elements shifted cyclically by `shift` along `axis` (flattened if None).

    >>> jnp.roll(jnp.arange(5), 2)
    Array([3, 4, 0, 1, 2], dtype=int32)
    """
    a = _asarray("roll", a)
    shp = _shape(a)
    if axis is None:
        return lax.reshape(roll(ravel(a), shift, 0), shp)
    axes = tuple(canonicalize_axis(i, len(shp)) for i in _index_tuple(axis))
    try:
        shifts = _index_tuple(shift)
    except TypeError:            # a traced shift: slice a doubled array dynamically
        shift = asarray(shift)              # (a tuple of traced shifts too, as JAX's)
        bshape = np.broadcast_shapes(_shape(shift), (len(axes),))
        if len(bshape) != 1:
            raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D "
                             "arrays") from None
        shift = broadcast_to(shift, bshape)
        for i, ax in enumerate(np.broadcast_to(np.asarray(axes), bshape).tolist()):
            n = shp[ax]
            if n == 0:
                continue
            s = _astype(_index_axis(shift, i, 0), np.int32)
            s = lax.rem(lax.add(lax.rem(s, np.int32(n)), np.int32(n)), np.int32(n))  # in [0, n)
            starts = [np.int32(0)] * len(shp)
            starts[ax] = lax.sub(np.int32(n), s)
            a = lax.dynamic_slice(lax.concatenate([a, a], ax), starts, shp)
        return a
    return _roll_static(a, shifts, axes)


@jnp_jit(static_argnames=("shift", "axis"))
def _roll_static(a, shift, axis):
    shp = _shape(a)
    for dim, s in zip(*np.broadcast_arrays(np.asarray(axis), np.asarray(shift))):
        ax, n = int(dim), shp[int(dim)]
        if n == 0:
            continue
        i = (-int(s)) % n
        # (the NumPy int concatenates, as JAX's: `concatenate[dimension=np.int64(0)]`)
        a = lax.concatenate([lax.slice_in_dim(a, i, n, axis=ax),
                             lax.slice_in_dim(a, 0, i, axis=ax)], dim)
    return a


@jax_jitted(static_argnames=("k", "axes"))
def rot90(m, k: int = 1, axes: tuple = (0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes` (from the first axis
    towards the second)."""
    m = _asarray("rot90", m)
    ndim = len(_shape(m))
    if ndim < 2:
        raise ValueError(f"rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {_shape(m)}, which has ndim {ndim}")
    ax1, ax2 = (canonicalize_axis(a, ndim) for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


# ------------------------------------------------------------------ tile, resize
def tile(A, reps):
    """`A` repeated `reps` times along each axis: JAX's `tile` primitive (lax.tile), after
    leading unit axes where `reps` is longer than `A`'s rank.

    >>> jnp.tile(jnp.array([1, 2]), 2)
    Array([1, 2, 1, 2], dtype=int32)
    """
    A = _asarray("tile", A)
    try:
        reps = tuple(iter(reps))
    except TypeError:
        reps = (reps,)
    reps = tuple(map(_index_or_as_is, reps))
    shp = _shape(A)
    reps = (1,) * (len(shp) - len(reps)) + reps
    traced = [r for r in reps if isinstance(r, Tracer) and r.to_concrete_value() is None]
    if traced:
        # the counts are the tile primitive's parameter: JAX's bind refuses a tracer there
        # when staging a jaxpr; a vmap's tracer (no jaxpr being built) fails on the hash
        if not isinstance(traced[0], DynamicJaxprTracer):
            raise TypeError(f"unhashable type: '{type(traced[0]).__name__}'")
        raise unhashable_parameter("tile", "reps", reps, traced[0])
    if not any(map(is_symbolic, reps + tuple(shp))):
        if len(reps) > len(shp):
            A = lax.expand_dims(A, tuple(range(len(reps) - len(shp))))
        return lax.tile(A, reps)
    # jax.export's symbolic sizes: a broadcast plus a reshape, which lower with them
    shp = (1,) * (len(reps) - len(shp)) + shp
    A = lax.reshape(A, shp)
    # broadcast to (r0, d0, r1, d1, ...), then merge each pair
    wide = tuple(x for pair in zip(reps, shp) for x in pair)
    out = lax.broadcast_in_dim(A, wide, tuple(range(1, 2 * len(shp), 2)))
    return lax.reshape(out, tuple(r * d for r, d in zip(reps, shp)))


@jax_jitted(static_argnames=("new_shape",))
def resize(a, new_shape):
    """`a` flattened, repeated as needed and cut to `new_shape` (NumPy's resize)."""
    a = ravel(_asarray("resize", a))
    new_shape = _index_tuple(new_shape)
    n, total = _shape(a)[0], math.prod(new_shape)
    if n == 0 or total == 0:
        return _full(new_shape, 0, _dtype(a))
    reps = -(-total // n)
    return lax.reshape(_slice_axis(tile(a, reps), 0, total, 0), new_shape)


# ------------------------------------------------------------------ triangles
def _tri_mask(n: int, m: int, k: int):
    """bool[n, m]: True where column <= row + k (what jnp.tri gives), in JAX's order of
    equations (rows, + k, columns)."""
    # (a symbolic k, as JAX's _tri takes it: its value, core.dimension_as_value)
    offset = lax.convert_element_type(k.__jax_array__(), np.int32) if is_symbolic(k) else \
        np.int32(k)
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), offset)
    return lax.ge(rows, lax.broadcasted_iota(np.int32, (n, m), 1))


def _broadcast_mask(mask, shp, m=None):
    # lax.broadcast over the leading axes, as JAX's tril/triu: nothing for a matrix, unless
    # `m`'s type splits it (JAX's broadcast to typeof(m).sharding: the select's operands alike)
    out_s = _typed_like(m)
    return mask if len(shp) == 2 and out_s is None else \
        lax.broadcast_in_dim(mask, shp, (len(shp) - 2, len(shp) - 1), out_sharding=out_s)


def _typed_like(m):
    """`m`'s sharding type over its abstract mesh (None: untyped, or splitting nothing)."""
    a = None if m is None else aval_of(m)
    if a is None or getattr(a, "split", None) is None or not any(parts_of(a)):
        return None
    return abstract_sharding(a)


def _tri_zeros(m):
    """Zeros like `m`, split as `m`'s type says (JAX's zeros_like)."""
    out_s = _typed_like(m)
    if out_s is None:
        return _zeros_like(m)
    a = aval_of(m)
    return lax.full(a.shape, 0, a.dtype, sharding=out_s) if not a.weak_type else \
        _full(a.shape, 0, a.dtype, True)


@jax_jitted
@jnp_jit(static_argnames=("k",))     # jitted as JAX's: `jit[name=tril]`
def tril(m, k: int = 0):
    """`m` with the elements above the k-th diagonal zeroed (on the last two axes).

    >>> jnp.tril(jnp.ones((2, 2), int))
    Array([[1, 0],
           [1, 1]], dtype=int32)
    """
    m = _asarray("tril", m)
    shp = _shape(m)
    if len(shp) < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    mask = _broadcast_mask(_tri_mask(*shp[-2:], index_or_symbolic(k)), shp, m)
    return lax.select(mask, m, _tri_zeros(m))


@jax_jitted
@jnp_jit(static_argnames=("k",))     # jitted as JAX's: `jit[name=triu]`
def triu(m, k: int = 0):
    """`m` with the elements below the k-th diagonal zeroed (on the last two axes)."""
    m = _asarray("triu", m)
    shp = _shape(m)
    if len(shp) < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    # k - 1 first, as JAX's triu (`triu(m, k='1')`: Python's TypeError for the subtraction)
    mask = _broadcast_mask(_tri_mask(*shp[-2:], index_or_symbolic(k - 1)), shp, m)
    return lax.select(mask, _tri_zeros(m), m)


# ------------------------------------------------------------------ atleast_nd, shape info
def _atleast(name, arys, nd, where):
    out = []
    for x in arys:
        x = _asarray(name, x)
        shp = _shape(x)
        if len(shp) < nd:           # size-1 axes inserted by broadcast_in_dim, as JAX's
            x = lax.expand_dims(x, where(shp))
        out.append(x)
    return out[0] if len(out) == 1 else out


# jitted as JAX's: `jit[name=atleast_1d]` (hstack's, vstack's, dstack's too)
@jax_jitted
@jnp_jit
def atleast_1d(*arys):
    """Each input as an array with at least 1 dimension.  ``atleast_1d(1.0).shape == (1,)``"""
    return _atleast("atleast_1d", arys, 1, lambda s: (0,))


@jax_jitted
@jnp_jit
def atleast_2d(*arys):
    """Each input with at least 2 dimensions (1-D arrays become a row)."""
    return _atleast("atleast_2d", arys, 2, lambda s: tuple(range(2 - len(s))))


@jax_jitted
@jnp_jit
def atleast_3d(*arys):
    """Each input with at least 3 dimensions: (1, 1, 1), (1, n, 1) or (n, m, 1)."""
    return _atleast("atleast_3d", arys, 3,
                    lambda s: (0, 1, 2) if not s else (0, 2) if len(s) == 1 else (2,))


def shape(a) -> tuple:
    """The shape of an array or array-like.  ``jnp.shape(3.0) == ()``"""
    if util.is_arraylike(a):
        return tuple(aval_of(a).shape)
    util.warn_arraylike("shape", a)
    return np.shape(a)


def ndim(a) -> int:
    """The number of dimensions of an array or array-like."""
    if util.is_arraylike(a):
        return aval_of(a).ndim
    util.warn_arraylike("ndim", a)
    return np.ndim(a)


def size(a, axis: int | None = None) -> int:
    """The number of elements of `a` (along `axis` if given)."""
    util.warn_arraylike("size", a)
    shp = shape(a)
    if axis is None:
        return math.prod(shp)
    # JAX takes a tuple of axes too (the product of their lengths); repeated axes are an error
    axes = tuple(canonicalize_axis(ax, len(shp))
                 for ax in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axis}")
    return math.prod(shp[i] for i in axes)
