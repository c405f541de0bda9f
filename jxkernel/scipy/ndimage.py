"""jax.scipy.ndimage: `map_coordinates`, an array sampled at fractional coordinates
(nearest-neighbour or linear interpolation), with scipy's boundary modes.

    >>> image = jnp.arange(12.0).reshape(3, 4)
    >>> map_coordinates(image, [jnp.array([0.5, 2.0]), jnp.array([1.0, 2.5])], order=1)
    Array([ 3. , 10.5], dtype=float32)
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core import dtypes
from ..numpy.util import jnp_jit

__all__ = ["map_coordinates"]


# Where an index outside [0, size) reads from, per mode (scipy.ndimage's definitions).
def _mirror(index, size):
    """Reflect about the edge elements: ... 2 1 | 0 1 2 ... n-1 | n-2 ... (a triangle wave
    of period 2 (size - 1))."""
    half = size - 1
    return jnp.abs((index + half) % (2 * half) - half)


def _reflect(index, size):
    """Reflect about the array's edges: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ... (the mirror of
    the doubled grid 2 index + 1, halved)."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_MODES = {
    "constant": lambda index, size: index,      # out of range reads cval (masked below)
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away(x):
    return x if dtypes.is_int(x.dtype) else lax.round(x)     # lax.round: away from zero


def _nodes(coordinate, order):
    """[(index, weight)] of the grid points one coordinate interpolates between."""
    if order == 0:
        return [(_round_half_away(coordinate).astype(np.int32), coordinate.dtype.type(1))]
    below = jnp.floor(coordinate)
    above_weight = coordinate - below
    index = below.astype(np.int32)
    return [(index, 1 - above_weight), (index + 1, above_weight)]


@jnp_jit(static_argnames=("order", "mode", "cval"))
def _map_coordinates(input, coordinates, order, mode, cval):
    image = jnp.asarray(input)
    coordinates = [jnp.asarray(c) for c in coordinates]
    fill = jnp.asarray(cval, image.dtype)
    if len(coordinates) != image.ndim:
        raise ValueError(f"coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {image.ndim}")
    fix = _MODES.get(mode)
    if fix is None:
        raise NotImplementedError(f"jax.scipy.ndimage.map_coordinates does not yet support "
                                  f"mode {mode}. Currently supported modes are {set(_MODES)}.")
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                                  "order<=1")
    # per axis, the (fixed index, in range?, weight) of each node; in range is only asked
    # in constant mode, where the other modes' fixed index always is
    per_axis = [[(fix(i, size), (0 <= i) & (i < size) if mode == "constant" else None, w)
                 for i, w in _nodes(c, order)]
                for c, size in zip(coordinates, image.shape)]
    terms = []
    for corner in itertools.product(*per_axis):       # every corner of the cell
        indices, inside, weights = zip(*corner)
        value = image[indices]
        if mode == "constant":
            value = jnp.where(functools.reduce(operator.and_, inside), value, fill)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if dtypes.is_int(image.dtype):
        result = _round_half_away(result)
    return result.astype(image.dtype)


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
    """`input` sampled at `coordinates` (one array per axis of `input`, all of one shape:
    the result's), by nearest-neighbour (`order=0`, halves rounded away from zero) or
    multilinear (`order=1`) interpolation. Outside the array, `mode` says what is read:
    'constant' (`cval`), 'nearest' (the edge), 'wrap', 'mirror' or 'reflect', as in scipy.
    Integer inputs give rounded integer results."""
    return _map_coordinates(input, coordinates, order, mode, cval)
