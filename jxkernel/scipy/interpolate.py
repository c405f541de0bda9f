"""jax.scipy.interpolate: `RegularGridInterpolator`, values on a rectilinear grid read at any
points by multilinear or nearest-neighbour interpolation (scipy's semantics, without its
`bounds_error`, which needs the values: under jit they are not known).

    >>> rows, cols = jnp.array([0., 1., 2.]), jnp.array([0., 10.])
    >>> f = RegularGridInterpolator((rows, cols), jnp.array([[0., 1.], [2., 3.], [4., 5.]]))
    >>> f(jnp.array([[0.5, 5.0], [2.0, 10.0], [3.0, 0.0]]))
    Array([1.5, 5. , nan], dtype=float32)

An interpolator is a pytree (grid, values and fill value are its leaves), so it can be passed
into jit and vmap and differentiated with respect to its values.
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import numpy as jnp
from ..core import dtypes
from ..numpy.util import check_arraylike, promote_dtypes_inexact
from ..tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined")


def _points_array(xi, ndim):
    """Sample points as one array whose last axis holds the coordinates: a tuple of
    coordinate arrays is broadcast and stacked (as the default float dtype, as in JAX), a
    1-d array is read as rows of `ndim` coordinates."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = jnp.broadcast_arrays(*xi)
        return jnp.stack([p.astype(dtypes.default_float_dtype()) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", xi)
    xi = jnp.asarray(xi)
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolate `values` given on the grid `points` (one increasing 1-d array per leading
    axis of `values`; trailing axes of `values` are carried along) at sample points.

    `method`: 'linear' or 'nearest' (a tie goes to the lower grid point). Points outside the
    grid give `fill_value` (NaN by default), or with `fill_value=None` are extrapolated from
    the nearest cell. `bounds_error=True` is refused (NotImplementedError), as in JAX."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > np.ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{np.ndim(values)} dimensions")
        values, = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        check_arraylike("RegularGridInterpolator", *points)
        self.method, self.bounds_error, self.fill_value = method, bounds_error, fill_value
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        lead = xi.shape[:-1]
        cells, fractions, outside = self._locate(xi.reshape(-1, ndim).T)
        result = (self._linear if method == "linear" else self._nearest)(cells, fractions)
        if self.fill_value is not None:
            outside = outside.reshape(outside.shape + (1,) * (result.ndim - 1))
            result = jnp.where(outside, self.fill_value, result)
        return result.reshape(lead + self.values.shape[ndim:])

    def _locate(self, columns):
        """Per grid axis: the cell each point falls in (its lower grid index, clipped to
        the first and last cells), where in the cell (0 at the lower point, 1 at the upper,
        beyond for points outside), and whether any coordinate is off the grid."""
        cells, fractions = [], []
        outside = jnp.zeros(columns.shape[1:], bool)
        for x, g in zip(columns, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, fractions, outside

    def _linear(self, cells, fractions):
        """The weighted sum over the cell's 2^ndim corners: along each axis, weight
        1 - fraction for the lower point and fraction for the upper."""
        carried = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        total = None
        for corner in itertools.product((0, 1), repeat=len(cells)):
            index = tuple(i + c for i, c in zip(cells, corner))
            weight = functools.reduce(operator.mul, (t if c else 1 - t
                                                     for c, t in zip(corner, fractions)))
            term = self.values[index] * weight[carried]
            total = term if total is None else total + term
        return total

    def _nearest(self, cells, fractions):
        return self.values[tuple(jnp.where(t <= 0.5, i, i + 1)
                                 for i, t in zip(cells, fractions))]


def _unflatten(aux, leaves) -> RegularGridInterpolator:
    """The interpolator of `leaves` as they are, unchecked, as JAX's: vmap's in_axes and
    tree utilities unflatten it with placeholder leaves (or tracers) that the checks of
    __init__ would refuse."""
    f = object.__new__(RegularGridInterpolator)
    f.grid, f.values, f.fill_value = leaves
    f.method, f.bounds_error = aux
    return f


register_pytree_node(
    RegularGridInterpolator,
    lambda f: ((f.grid, f.values, f.fill_value), (f.method, f.bounds_error)), _unflatten)
