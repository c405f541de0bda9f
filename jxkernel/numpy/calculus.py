"""Finite differences and their inverses: diff, ediff1d, gradient, trapezoid, interp, unwrap.

    >>> jnp.diff(jnp.array([1, 4, 9, 16]))
    Array([3, 5, 7], dtype=int32)
    >>> jnp.trapezoid(jnp.array([0., 1., 2.]))
    Array(2., dtype=float32)

All are built from slices, subtractions and searchsorted, so jit, grad and vmap go through
them. Where JAX jits a function (diff, gradient, trapezoid, unwrap, interp) we do too, with
the same static arguments, so staged code shows the same nested `pjit`.
"""
from __future__ import annotations

import operator

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from ..core import dtypes
from . import reductions, ufuncs, util
from .creation import _concrete, asarray
from .manipulation import broadcast_to, concatenate, moveaxis, ravel
from .sorting import searchsorted
from .util import aval_of, canonicalize_axis, ensure_arraylike, jnp_jit

__all__ = ["diff", "ediff1d", "gradient", "trapezoid", "interp", "unwrap"]


def _static_index(x, what: str) -> int:
    return operator.index(_concrete(x, what))


def _along(x, axis: int, start, stop):
    """x[start:stop] along `axis` (negative and None bounds as in Python slices)."""
    n = aval_of(x).shape[axis]
    start, stop, _ = slice(start, stop).indices(n)
    return lax.slice_in_dim(x, start, max(start, stop), axis=axis)


# ------------------------------------------------------------------ diff, ediff1d
@jax_jitted
@jnp_jit(static_argnames=("n", "axis"))
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """The n-th discrete difference along `axis` (`!=` for booleans, as NumPy).

    >>> jnp.diff(jnp.array([[1, 3], [4, 9]]), axis=0)
    Array([[3, 6]], dtype=int32)
    """
    arr = ensure_arraylike("diff", a)
    n = _static_index(n, "It arose in the 'n' argument of jnp.diff")
    axis = _static_index(axis, "It arose in the 'axis' argument of jnp.diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    shape = aval_of(arr).shape
    if not shape:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, len(shape))
    edge = shape[:axis] + (1,) + shape[axis + 1:]     # a scalar prepend/append fills a slab

    def _slab(v):
        v = ensure_arraylike("diff", v)
        return broadcast_to(v, edge) if not aval_of(v).shape else v

    pieces = [arr]
    if prepend is not None:
        pieces.insert(0, _slab(prepend))
    if append is not None:
        pieces.append(_slab(append))
    if len(pieces) > 1:
        arr = concatenate(pieces, axis)
    op = ufuncs.not_equal if aval_of(arr).dtype == dtypes.bool_ else ufuncs.subtract
    for _ in range(n):
        arr = op(_along(arr, axis, 1, None), _along(arr, axis, None, -1))
    return arr


@jax_jitted
@jnp_jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional values
    before and after (cast to its dtype).

    >>> jnp.ediff1d(jnp.array([1, 2, 4]), to_begin=-9)
    Array([-9,  1,  2], dtype=int32)
    """
    arr = ravel(ensure_arraylike("ediff1d", ary))
    dtype = aval_of(arr).dtype
    out = lax.sub(_along(arr, 0, 1, None), _along(arr, 0, None, -1))
    if to_begin is not None:
        to_begin = ensure_arraylike("ediff1d", to_begin).astype(dtype)
        out = concatenate((ravel(to_begin), out))
    if to_end is not None:
        to_end = ensure_arraylike("ediff1d", to_end).astype(dtype)
        out = concatenate((out, ravel(to_end)))
    return out


# ------------------------------------------------------------------ gradient
def _gradient_along(a, h, axis: int):
    """Second-order central differences inside, first-order one-sided at the two ends; `h`
    is a scalar spacing or the coordinates along `axis`."""
    def cut(x, start, stop):
        return _along(x, axis, start, stop)

    first = cut(a, 1, 2) - cut(a, 0, 1)
    last = cut(a, -1, None) - cut(a, -2, -1)
    hshape = aval_of(h).shape
    if len(hshape) == 0:
        inner = (cut(a, 2, None) - cut(a, None, -2)) * 0.5 / h
        return concatenate((first / h, inner, last / h), axis=axis)
    if len(hshape) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    nd, n = len(aval_of(a).shape), aval_of(a).shape[axis]
    if hshape[0] != n:
        raise ValueError("Spacing arrays must have the same length as the dimension along "
                         "which the gradient is calculated.")
    h = h.reshape(tuple(n if d == axis else 1 for d in range(nd)))
    first = first / (cut(h, 1, 2) - cut(h, 0, 1))
    last = last / (cut(h, -1, None) - cut(h, -2, -1))
    d1 = cut(h, 1, -1) - cut(h, 0, -2)       # spacing to the left of each inner point
    d2 = cut(h, 2, None) - cut(h, 1, -1)     # and to its right
    inner = (-d2 / (d1 * (d1 + d2)) * cut(a, 0, -2) + (d2 - d1) / (d1 * d2) * cut(a, 1, -1)
             + d1 / (d2 * (d1 + d2)) * cut(a, 2, None))
    return concatenate((first, inner, last), axis=axis)


@jax_jitted
@jnp_jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """Central-difference gradient of `f` along each axis (a list for several axes);
    spacings are scalars or coordinate arrays, one per axis or one for all.

    >>> jnp.gradient(jnp.array([1., 4., 9., 16.]))
    Array([3., 4., 6., 7.], dtype=float32)
    """
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not "
                                  "supported.")
    a, *spacing = util.promote_dtypes_inexact(f, *varargs)
    shape = aval_of(a).shape
    if axis is None:
        axes = tuple(range(len(shape)))
    else:
        axes = tuple(canonicalize_axis(i, len(shape))
                     for i in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if not axes:
        return []
    if min(shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least 2 elements are required.")
    if not spacing:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for "
                        f"axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, spacing)]
    return grads[0] if len(axes) == 1 else grads


# ------------------------------------------------------------------ trapezoid
@jax_jitted
@jnp_jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of `y` along `axis` by the trapezoidal rule, at points `x` or with
    constant spacing `dx`.

    >>> jnp.trapezoid(jnp.array([1., 2., 3.]), x=jnp.array([0., 1., 3.]))
    Array(6.5, dtype=float32)
    """
    if x is None:
        y_arr, = util.promote_dtypes_inexact(ensure_arraylike("trapezoid", y))
        step = asarray(dx)
        if aval_of(step).ndim > 0:
            step = lax.expand_dims(step, tuple(range(aval_of(y_arr).ndim - aval_of(step).ndim)))
            step = moveaxis(step, axis, -1)
    else:
        y_arr, x_arr = util.promote_dtypes_inexact(*ensure_arraylike("trapezoid", y, x))
        if aval_of(x_arr).ndim == 1:
            step = diff(x_arr)
        else:
            step = moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    sshape = aval_of(step).shape
    if not sshape or sshape[-1] == 1:        # constant spacing: one multiply at the end
        h = step if not sshape else step[..., 0]
        return h * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (step * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)


# ------------------------------------------------------------------ interp
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points (xp, fp) at `x` (xp increasing);
    `left`/`right` are the values outside (or 'extrapolate'), `period` makes it periodic.

    >>> jnp.interp(jnp.array([0.5, 3.]), jnp.array([0., 1., 2.]), jnp.array([0., 10., 5.]))
    Array([5., 5.], dtype=float32)
    """
    static = [name for name, v in (("left", left), ("right", right))
              if v is None or isinstance(v, str)]
    if period is None:
        static.append("period")
    return _interp_jit(tuple(static))(x, xp, fp, left, right, period)


_interp_jits: dict = {}


def _interp_jit(static: tuple):
    fn = _interp_jits.get(static)
    if fn is None:
        fn = _interp_jits[static] = jnp_jit(_interp, static_argnames=static)
    return fn


def _extrapolates(side, name: str) -> bool:
    if isinstance(side, str):
        if side != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                             f"but got: {side!r}")
        return True
    return False


def _interp(x, xp, fp, left=None, right=None, period=None):
    x, xp, fp = ensure_arraylike("interp", x, xp, fp)
    if aval_of(xp).shape != aval_of(fp).shape or aval_of(xp).ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = util.promote_dtypes_inexact(x, xp)
    fp, = util.promote_dtypes_inexact(fp)
    extrapolate_left = _extrapolates(left, "left")
    extrapolate_right = _extrapolates(right, "right")
    if dtypes.issubdtype(aval_of(x).dtype, np.complexfloating):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = ufuncs.abs(period)
        x, xp = x % period, xp % period
        xp, fp = lax.sort_key_val(xp, fp)
        # one wrapped point at each end makes the periodic case an ordinary one
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = aval_of(xp).shape[0]
    i = ufuncs.clip(searchsorted(xp, x, side="right"), 1, n - 1)
    df = fp[i] - fp[i - 1]
    dx = xp[i] - xp[i - 1]
    # a zero-width interval takes its left value (and no NaN reaches the gradient)
    tiny = lax.abs(dx) <= np.spacing(dtypes.finfo(aval_of(xp).dtype).eps)
    f = util.where(tiny, fp[i - 1], fp[i - 1] + ((x - xp[i - 1]) / util.where(tiny, 1, dx)) * df)
    if period is None:
        if not extrapolate_left:
            f = util.where(x < xp[0], fp[0] if left is None else left, f)
        if not extrapolate_right:
            f = util.where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


# ------------------------------------------------------------------ unwrap
@jax_jitted
@jnp_jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """`p` with jumps larger than `discont` (default period/2) along `axis` replaced by
    their complement modulo `period`.

    >>> jnp.unwrap(jnp.array([0., 3., 6.5]))
    Array([0.      , 3.      , 0.216815], dtype=float32)
    """
    p = ensure_arraylike("unwrap", p)
    p, period = util.promote_dtypes(p, period)
    dtype = aval_of(p).dtype
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if aval_of(p).shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    half = period // 2 if dtypes.issubdtype(dtype, np.integer) else period / 2
    dd = diff(p, axis=axis)
    ddmod = ufuncs.mod(dd + half, period) - half
    ddmod = util.where((ddmod == -half) & (dd > 0), half, ddmod)   # +half, not -half, upward
    correction = util.where(ufuncs.abs(dd) < discont, 0, ddmod - dd)
    axis = canonicalize_axis(axis, aval_of(p).ndim)
    return concatenate((_along(p, axis, 0, 1),
                        _along(p, axis, 1, None) + reductions.cumsum(correction, axis=axis)),
                       axis=axis)
