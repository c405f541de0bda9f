"""jnp.pad: every NumPy mode (constant, edge, wrap, reflect/symmetric, linear_ramp,
maximum/minimum/mean/median, empty), each a few lax pads, slices and concatenates per axis,
as JAX builds them.

    >>> jnp.pad(jnp.arange(3), 1, mode="edge")
    Array([0, 0, 1, 2, 2], dtype=int32)

Widths must be static (Python ints or concrete arrays); the values are traced.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError, InconclusiveDimensionOperation
from ..core.symbolic import index_or_symbolic, is_symbolic, min_dim
from ..core.trace import Tracer
from ..tree_util import tree_leaves
from ..lax import conversion
from . import reductions
from .creation import asarray
from .index_tricks import repeat
from .manipulation import _asarray, _dtype, _index_axis, _shape, broadcast_to, flip
from .ranges import linspace
from .util import aval_of, jnp_jit

__all__ = ["pad"]


def _pairs(values, nd: int, name: str) -> tuple:
    """`values` (scalar, (v,), (before, after), ((b, a),) or per axis) as nd pairs."""
    try:
        arr = np.asarray(values)
    except Exception:
        raise TypeError(f"`{name}` entries must be the same shape: {values}") from None
    # (an object array: entries of symbolic size, jax.export, are widths as JAX's are)
    if arr.dtype.kind == "O" and not all(is_symbolic(v) or np.shape(v) == ()
                                         for v in arr.ravel()):
        raise TypeError(f"`{name}` entries must be the same shape: {values}")
    # NumPy scalars, as JAX's _broadcast_to_pairs leaves them: pad's padding_config then
    # prints as JAX's (`np.int64(1)`)
    if arr.shape == (nd, 2):
        return tuple((v[0], v[1]) for v in arr)
    if arr.shape == (1, 2):
        return ((arr[0, 0], arr[0, 1]),) * nd
    if arr.shape == (2,):
        return ((arr[0], arr[1]),) * nd
    if arr.shape in ((1,), ()):
        v = arr.ravel()[0]
        return ((v, v),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _check_no_padding(widths, mode):
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _converted(x, a):
    """`x` with the dtype and weak type of aval `a`; as JAX's lax._convert_element_type, no
    equation where they are already so."""
    c = aval_of(x)
    if (c.dtype, c.weak_type) == (a.dtype, a.weak_type):
        return x
    return conversion._convert_element_type(x, a.dtype, a.weak_type)


def _pad_constant(array, widths, constant_values):
    a = aval_of(array)
    cv = _converted(asarray(constant_values), a)
    cshape = _shape(cv)
    if len(cshape) == 0:
        return lax.pad(array, cv, [(lo, hi, 0) for lo, hi in widths])
    if len(cshape) == 1 and cshape[-1] == 1:
        return lax.pad(array, lax.reshape(cv, ()), [(lo, hi, 0) for lo, hi in widths])
    if len(cshape) == 1 and cshape[-1] != 2:
        raise ValueError(f"jnp.pad: constant_values has unsupported shape {cshape}. If the "
                         f"shape is 1D or 2D, the last dimension must be of size 1 or 2.")
    cv = broadcast_to(cv, (len(widths), 2))
    for i, (lo, hi) in enumerate(widths):
        for side, n in ((0, lo), (1, hi)):
            if n:
                cfg = [(0, 0, 0)] * len(widths)
                cfg[i] = (n, 0, 0) if side == 0 else (0, n, 0)
                array = lax.pad(array, _index_axis(_index_axis(cv, i, 0), side, 0), cfg)
    return array


def _axes_to_pad(shape, widths, mode: str):
    """(axis, lo, hi, its size) of each non-empty axis; an empty one takes no padding of
    `mode` (checked). Padding one axis leaves the others' sizes as they were."""
    for i, ((lo, hi), n) in enumerate(zip(widths, shape)):
        if n == 0:
            _check_no_padding((lo, hi), mode)
            continue
        yield i, lo, hi, n


def _pad_wrap(array, widths):
    for i, lo, hi, n in _axes_to_pad(_shape(array), widths, "wrap"):
        (lrep, lrem), (rrep, rrem) = divmod(lo, n), divmod(hi, n)
        parts = [lax.slice_in_dim(array, n - lrem, n, axis=i)] if lrem else []
        parts += [array] * (lrep + rrep + 1)
        parts += [lax.slice_in_dim(array, 0, rrem, axis=i)] if rrem else []
        array = lax.concatenate(parts, i)
    return array


def _pad_reflect(array, widths, mode: str, reflect_type: str):
    # as JAX's _pad_symmetric_or_reflect: lax slices, jnp.flip (`jit[name=_flip]`), jnp's
    # arithmetic for the odd reflection
    for i, lo, hi, n in _axes_to_pad(_shape(array), widths, mode):
        if lo == 0 and hi == 0:
            continue
        for before, padding in ((True, lo), (False, hi)):
            offset = _reflect_offset(mode, i, n, padding, before)
            edge = lax.slice_in_dim(array, 0, 1, axis=i) if before else \
                lax.slice_in_dim(array, -1, None, axis=i)
            while padding > 0:     # reflect repeatedly when the pad is longer than the axis
                cur = builtins.min(padding, n - offset)
                padding -= cur
                if before:
                    x = lax.slice_in_dim(array, offset, offset + cur, axis=i)
                else:
                    stop = None if (mode == "symmetric" or n == 1) else -1
                    x = lax.slice_in_dim(array, -(cur + offset), stop, axis=i)
                x = flip(x, axis=i)
                if reflect_type == "odd":        # reflect through the edge value: 2*edge - x
                    x = 2 * edge - x
                    if n > 1:
                        edge = lax.slice_in_dim(x, 0, 1, axis=i) if before else \
                            lax.slice_in_dim(x, -1, None, axis=i)
                array = lax.concatenate([x, array] if before else [array, x], i)
    return array


def _reflect_offset(mode: str, i: int, n, padding, before: bool) -> int:
    """Where a reflection starts (1 for 'reflect' of an axis longer than 1); with a
    symbolic size or padding, JAX's ValueError unless one reflection is known to do."""
    def error():
        return ValueError(
            f"Shape polymorphism is supported for jnp.pad with 'reflect' or 'symmetric' "
            f"padding mode only when it is possible to determine at lowering time that the "
            f"axis size (= {n}) is larger than 1 and larger or equal than the padding length "
            f"(= {padding}). Error while handling {'left' if before else 'right'} padding on "
            f"axis {i}.")
    try:
        offset = 1 if mode == "reflect" and n > 1 else 0
        if (is_symbolic(n) or is_symbolic(padding)) and not (n > 1 and n - offset >= padding):
            raise error()
    except InconclusiveDimensionOperation as e:
        raise error() from e
    return offset


def _pad_edge(array, widths):
    for i, lo, hi, n in _axes_to_pad(_shape(array), widths, "edge"):
        before = repeat(lax.slice_in_dim(array, 0, 1, axis=i), lo, axis=i)
        after = repeat(lax.slice_in_dim(array, n - 1, n, axis=i), hi, axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_linear_ramp(array, widths, end_values):
    a = aval_of(array)
    for ax, (lo, hi) in enumerate(widths):
        ramps = []
        for side, n in ((0, lo), (1, hi)):
            edge = lax.squeeze(lax.slice_in_dim(array, 0, 1, axis=ax) if side == 0 else
                               lax.slice_in_dim(array, -1, None, axis=ax), (ax,))
            ramp = linspace(end_values[ax][side], edge, num=n, endpoint=False, dtype=a.dtype,
                            axis=ax)
            ramp = conversion._convert_element_type(ramp, a.dtype, a.weak_type)
            ramps.append(ramp if side == 0 else lax.rev(ramp, (ax,)))
        array = lax.concatenate([ramps[0], array, ramps[1]], ax)
    return array


def _pad_stats(array, widths, stat_length, stat_func):
    a = aval_of(array)
    for i, (lo, hi) in enumerate(widths):
        if stat_length is None:
            before = after = stat_func(array, axis=i, keepdims=True)
        else:
            n = _shape(array)[i]
            lb, la = stat_length[i]
            if lb == 0 or la == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            lb, la = min_dim(index_or_symbolic(lb), n), min_dim(index_or_symbolic(la), n)
            before = stat_func(lax.slice_in_dim(array, 0, lb, axis=i), axis=i, keepdims=True)
            after = stat_func(lax.slice_in_dim(array, -la, None, axis=i), axis=i,
                              keepdims=True)
        if dtypes.is_int(a.dtype) or a.dtype == np.bool_:
            if dtypes.is_inexact(_dtype(before)):
                before = lax.round(before, lax.RoundingMethod.TO_NEAREST_EVEN)
                after = lax.round(after, lax.RoundingMethod.TO_NEAREST_EVEN)
        before, after = _converted(before, a), _converted(after, a)
        array = lax.concatenate([repeat(before, lo, axis=i), array, repeat(after, hi, axis=i)], i)
    return array


_PAD_KWARGS = {"constant": ["constant_values"], "empty": [], "edge": [], "wrap": [],
               "linear_ramp": ["end_values"], "maximum": ["stat_length"],
               "mean": ["stat_length"], "median": ["stat_length"], "minimum": ["stat_length"],
               "reflect": ["reflect_type"], "symmetric": ["reflect_type"]}


def pad(array, pad_width, mode="constant", **kwargs):
    """`array` padded by `pad_width` (int, (before, after) or one pair per axis) with
    `mode`: constant (constant_values), edge, wrap, reflect/symmetric (reflect_type),
    linear_ramp (end_values), maximum/minimum/mean/median (stat_length) or empty.

    >>> jnp.pad(jnp.array([1, 2, 3]), (1, 2), mode="reflect")
    Array([2, 1, 2, 3, 2, 1], dtype=int32)
    """
    array = _asarray("pad", array)
    nd = len(_shape(array))
    pw = _pairs(_concrete_or_error(pad_width, "pad_width argument of jnp.pad"), nd, "pad_width")
    if not all(isinstance(v, (int, np.integer)) or is_symbolic(v) for pair in pw for v in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_func(array, pw, mode, **kwargs)
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    # stat_length and end_values are static arguments of _pad's jit, given as they came, as in
    # JAX: a list, an array or a tracer among them is refused there ("Non-hashable static
    # arguments are not supported"), where NumPy's pad takes them
    return _pad(array, pw, mode, kwargs.get("constant_values", 0), kwargs.get("stat_length"),
                kwargs.get("end_values", 0), kwargs.get("reflect_type", "even"))


def _pad_func(array, widths, func, **kwargs):
    """NumPy's callable mode, as JAX runs it: zeros padded on, then along each axis in turn
    `func(vector, (before, after), axis, kwargs)` on every 1-D slice, which returns the
    slice with its ends filled in."""
    # functional (apply_along_axis) loads on first use, off `import jxkernel` (numpy/__init__)
    from .functional import apply_along_axis
    padded = _pad_constant(array, widths, 0)
    for axis in range(len(_shape(padded))):
        padded = apply_along_axis(func, axis, padded, widths[axis], axis, kwargs)
    return padded


@jnp_jit(static_argnames=("pad_width", "mode", "stat_length", "end_values", "reflect_type"))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    """jnp.pad's work, a jit of its own named `_pad` as JAX's: the widths, mode and the other
    options static, the array and constant_values traced (`jit[name=_pad]` in a jaxpr)."""
    nd = len(_shape(array))
    if nd == 0:
        return array
    if np.asarray(pad_width).shape != (nd, 2):
        raise ValueError(f"Expected pad_width to have shape {(nd, 2)}; got "
                         f"{np.asarray(pad_width).shape}.")
    if any(lo < 0 or hi < 0 for lo, hi in pad_width):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, constant_values)
    if mode == "empty":      # JAX's empty is zeros
        return _pad_constant(array, pad_width, 0)
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("reflect", "symmetric"):
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
        return _pad_reflect(array, pad_width, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, _pairs(end_values, nd, "end_values"))
    stat = {"maximum": reductions.amax, "minimum": reductions.amin, "mean": reductions.mean,
            "median": reductions.median}[mode]
    return _pad_stats(array, pad_width, stat_length if stat_length is None else
                      _pairs(stat_length, nd, "stat_length"), stat)


def _concrete_or_error(x, what: str):
    """`x` with its arrays made NumPy values, or a ConcretizationTypeError naming `what`."""
    if isinstance(x, Tracer):
        v = x.to_concrete_value()
        if v is None:
            raise ConcretizationTypeError(x, f"{what}\n")     # (JAX's context, as it words it)
        return np.asarray(v)
    if isinstance(x, (list, tuple)):
        return type(x)(_concrete_or_error(v, what) for v in x)
    return x
