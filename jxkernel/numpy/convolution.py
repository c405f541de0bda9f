"""jnp.convolve and jnp.correlate: 1-D convolutions, as JAX computes them with one
lax.conv_general_dilated (the shorter operand is the kernel).

    >>> jnp.convolve(jnp.array([1., 2., 3.]), jnp.array([0., 1., 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ..transforms.jit.namesakes import jax_jitted
from .. import lax
from .ufuncs import conjugate
from .util import ensure_arraylike, jnp_jit, promote_dtypes, promote_dtypes_inexact

__all__ = ["convolve", "correlate"]


@jnp_jit
def _flip(m):
    return lax.rev(m, (0,))


@jnp_jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:       # NumPy convolves in floating point
        x, y = promote_dtypes_inexact(x, y)
    else:                                    # else keep the common input type
        x, y = promote_dtypes(x, y)
    if len(x) == 0 or len(y) == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    out_order = slice(None)
    if op == "correlate":
        y = conjugate(y)
        if len(x) < len(y):        # the longer one slides; reversing the result undoes the swap
            x, y = y, x
            out_order = slice(None, None, -1)
    else:
        if len(x) < len(y):        # convolution commutes
            x, y = y, x
        y = _flip(y)
    n = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = lax.conv_general_dilated(x[None, None, :], y[None, None, :], (1,), padding,
                                      precision=precision,
                                      preferred_element_type=preferred_element_type)
    return result[0, 0, out_order]


@jax_jitted
@jnp_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-D arrays, c[k] = sum_j a[k - j] v[j]; `mode` is
    'full' (default), 'same' (as long as `a`) or 'valid' (full overlap only).

    >>> jnp.convolve(jnp.array([1, 2, 3, 2, 1]), jnp.array([4, 1, 2]), mode='same')
    Array([ 9., 16., 15., 12.,  5.], dtype=float32)
    """
    a, v = ensure_arraylike("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@jax_jitted
@jnp_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-D arrays, c[k] = sum_j a[k + j] conj(v[j]); `mode` is
    'valid' (default), 'same' or 'full'.

    >>> jnp.correlate(jnp.array([1, 2, 3, 2, 1]), jnp.array([4, 5, 6]))
    Array([32., 35., 28.], dtype=float32)
    """
    a, v = ensure_arraylike("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)
