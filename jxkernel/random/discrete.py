"""Discrete choices: categorical (Gumbel-max and Gumbel top-k), permutation (repeated sorts
by random keys) and choice, as JAX 0.10.2 computes them.

    >>> permutation(jax.random.PRNGKey(0), 5)
    Array([0, 1, 4, 3, 2], dtype=int32)
"""
from __future__ import annotations

import collections
import math
import operator
import sys

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.source_info import learner_frame
from ..core.symbolic import is_symbolic
from ..core.trace import Tracer
from ..transforms.jit import jit
from . import key_prims
from .keys import check_key, static_shape, takes_out_sharding
from .samplers import (_bcast, _binop, _c, _check_shape, _dtype, _gumbel_impl, _gumbel_mode,
                       _randint_impl, _shape, _split2, _uniform_impl)


# ------------------------------------------------------------------ categorical
def _categorical_impl(key, logits, shape, batch_shape, axis, replace, mode):
    prefix = shape[:len(shape) - len(batch_shape)]
    ndim = len(_shape(logits))
    dtype = _dtype(logits)
    if replace:     # Gumbel-max: argmax of logits + Gumbel noise, one draw per output
        axis = axis - ndim if axis >= 0 else axis
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % ndim, _shape(logits)[axis])
        noise = _gumbel_impl(key, (*prefix, *logits_shape), dtype, mode)
        logits = lax.expand_dims(logits, tuple(range(len(prefix))))
        return lax.argmax(_binop(lax.add, noise, logits), axis % len(_shape(noise)),
                          dtypes.default_int_dtype())
    # Gumbel top-k: the k largest perturbed logits are k draws without replacement
    logits = lax.add(logits, _gumbel_impl(key, _shape(logits), dtype, mode))
    k = math.prod(prefix)
    if k > _shape(logits)[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number "
                         f"of categories ({_shape(logits)[axis]}).")
    axis = axis % ndim
    perm = tuple(i for i in range(ndim) if i != axis) + (axis,)
    _, indices = lax.top_k(lax.transpose(logits, perm), k)
    nd = len(_shape(indices))
    return lax.reshape(indices, shape, (nd - 1, *range(nd - 1)))


_categorical = jit(_categorical_impl, static_argnums=(2, 3, 4, 5, 6))


@takes_out_sharding
def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *,
                out_sharding=None):
    """Indices drawn from the categorical distributions softmax(logits) along `axis`.

    >>> categorical(jax.random.PRNGKey(0), np.log(np.array([0.1, 0.2, 0.7], np.float32)), shape=(5,))
    Array([1, 2, 2, 1, 2], dtype=int32)
    """
    data, _ = check_key("categorical", key)
    axis = operator.index(axis)     # (a concrete 0-d Array too, as JAX's takes it)
    logits_shape = _shape(logits)
    # np.delete, as JAX's: an axis out of bounds is its IndexError (a 0-d logits' too); an
    # object array keeps each dimension as it is (a symbolic one too)
    batch_shape = tuple(np.delete(np.array(logits_shape, dtype=object), axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = static_shape("categorical", shape)
        _check_shape("categorical", shape, batch_shape)
    if record_probability_sites:
        _record_probabilities(logits, axis)
    if not dtypes.is_float(_dtype(logits)):
        logits = lax.convert_element_type(logits, dtypes.to_inexact_dtype(_dtype(logits)))
    return _categorical(data, logits, shape, batch_shape, axis, replace, _gumbel_mode(mode))


# The learner's lines that gave categorical probabilities (every entry in [0, 1], each row
# summing to 1) where it takes logits, while the notebook tells them
# (notebook/notes/categorical_notes.py): it draws from softmax(p), another distribution, and
# JAX says nothing (NumPy's choice(p=...) and PyTorch's multinomial take probabilities). Each
# (file, line, the first row). Concrete values only: a traced one has none to read.
probability_sites: collections.deque = collections.deque(maxlen=8)
record_probability_sites = False


def _record_probabilities(logits, axis: int) -> None:
    shape = _shape(logits)
    if isinstance(logits, Tracer) or not shape or shape[axis] < 2 or math.prod(shape) > 1 << 20:
        return          # (a traced value has none to read; a large one is not copied to look)
    p = np.asarray(logits)
    if p.dtype.kind not in "fiu":
        return
    if not ((p >= 0).all() and (p <= 1).all() and
            np.allclose(p.sum(axis=axis), 1.0, atol=1e-3)):
        return
    frame = learner_frame(sys._getframe(2))
    if frame is not None:
        row = np.moveaxis(p, axis, -1).reshape(-1, p.shape[axis])[0]
        probability_sites.append((frame.f_code.co_filename, frame.f_lineno,
                                  tuple(float(v) for v in row)))


# ------------------------------------------------------------------ permutation, choice
def _take(x, indices, axis):
    """jnp.take(x, indices, axis) for in-bounds indices: a gather of whole slices."""
    xs, ishape = _shape(x), _shape(indices)
    offset_dims = tuple(range(axis)) + tuple(range(axis + len(ishape), len(xs) + len(ishape) - 1))
    dn = lax.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                    start_index_map=(axis,))
    slice_sizes = xs[:axis] + (1,) + xs[axis + 1:]
    return lax.gather(x, lax.expand_dims(indices, (len(ishape),)), dn, slice_sizes,
                      mode="promise_in_bounds")


def _shuffle_impl(key, x, axis):
    """Sort by random 32-bit keys, repeated until collisions are unlikely (3 log n / log
    2**32 rounds), as in XLA's/JAX's shuffle."""
    size = math.prod(_shape(x))
    if is_symbolic(size):
        raise NotImplementedError(f"shape polymorphism for `permutation` or `shuffle` for "
                                  f"arrays of non-constant size: {size}")
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(dtypes.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _split2(key)
        sort_keys = key_prims.random_bits(subkey, 32, _shape(x))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


_shuffle = jit(_shuffle_impl, static_argnums=(2,))


def _permutation_impl(key, x, axis, independent):
    if independent or len(_shape(x)) == 1:
        return _shuffle_impl(key, x, axis)
    ind = _shuffle_impl(key, lax.iota(dtypes.default_int_dtype(), _shape(x)[axis]), 0)
    return _take(x, ind, axis)


_permutation = jit(_permutation_impl, static_argnums=(2, 3))


@takes_out_sharding
def permutation(key, x, axis=0, independent=False, *, out_sharding=None):
    """A random permutation of `arange(x)` (an int) or of `x` along `axis`.

    >>> permutation(jax.random.PRNGKey(0), 5)
    Array([0, 1, 4, 3, 2], dtype=int32)
    """
    data, _ = check_key("permutation", key)
    shape = _shape(x)
    axis = lax.shapes.canonicalize_axis(axis, len(shape) or 1)
    if not shape:
        if not dtypes.is_int(_dtype(x)):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = _concrete_int(x, "argument x of jax.random.permutation()")
        # JAX's: a permutation of jnp.arange(x), empty for a negative x
        return _shuffle(data, lax.iota(dtypes.default_int_dtype(), max(n, 0)), axis)
    return _permutation(data, x, axis, bool(independent))


def _concrete_int(x, what):
    """`x` as a Python int; traced, JAX's ConcretizationTypeError, `what` naming the argument."""
    if isinstance(x, Tracer) and x.to_concrete_value() is None:
        raise ConcretizationTypeError(x, f"{what}\n")
    return int(x)


def _choice_impl(key, arr, p, n_inputs, shape, replace, axis, mode, scalar_a):
    n_draws = math.prod(shape)
    if p is None:
        if replace:
            ind = _randint_impl(key, _c(0, dtypes.default_int_dtype()),
                                _c(n_inputs, dtypes.default_int_dtype()), shape,
                                dtypes.default_int_dtype())
            result = ind if scalar_a else _take(arr, ind, axis)
        else:
            x = lax.iota(dtypes.default_int_dtype(), n_inputs) if scalar_a else arr
            perm = _shuffle_impl(key, x, axis) if len(_shape(x)) == 1 else \
                _permutation_impl(key, x, axis, False)
            result = lax.slice_in_dim(perm, 0, n_draws, axis=axis)
    else:
        int_dtype = dtypes.default_int_dtype()
        if replace:
            p_cuml = lax.cumsum(p, 0)
            total = lax.index_in_dim(p_cuml, n_inputs - 1, keepdims=False)
            u = _uniform_impl(key, 0., 1., shape, _dtype(p))
            r = lax.mul(total, lax.sub(_c(1, _dtype(p)), u))
            # searchsorted(p_cuml, r, side='left') = how many of p_cuml are < r
            below = lax.lt(_bcast(p_cuml, shape + (n_inputs,)), lax.expand_dims(r, (len(shape),)))
            ind = lax.reduce_sum(lax.convert_element_type(below, int_dtype), (len(shape),))
        else:
            g = lax.add(_gumbel_impl(key, (n_inputs,), _dtype(p), mode), lax.log(p))
            ind = lax.convert_element_type(lax.top_k(g, n_draws)[1], int_dtype)
        result = ind if scalar_a else _take(arr, ind, axis)
    arr_shape = _shape(arr)
    return lax.reshape(result, tuple(shape) if scalar_a else
                       arr_shape[:axis] + tuple(shape) + arr_shape[axis + 1:])


_choice = jit(_choice_impl, static_argnums=(3, 4, 5, 6, 7, 8))


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Draws from `a` (an array, or `arange(a)` for an int), with or without replacement,
    uniformly or with probabilities `p`.

    >>> choice(jax.random.PRNGKey(0), 5, (3,), replace=False)
    Array([0, 1, 4], dtype=int32)
    """
    data, _ = check_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = static_shape("choice", shape)
    a_shape = _shape(a)
    scalar_a = not a_shape
    if scalar_a:
        n_inputs = _concrete_int(a, "The error occurred in jax.random.choice()")
    else:
        axis = lax.shapes.canonicalize_axis(axis, len(a_shape))
        n_inputs = a_shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return lax.broadcast_in_dim(_c(0, _dtype(a)), shape, ())
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is not None:
        if _shape(p) != (n_inputs,):
            raise ValueError(f"p must be None or a 1D vector with the same size as "
                             f"a.shape[axis]. p has shape {_shape(p)} and a.shape[axis] is "
                             f"{n_inputs}.")
        p = lax.convert_element_type(p, dtypes.to_inexact_dtype(_dtype(p)))
    arr = _c(0, dtypes.default_int_dtype()) if scalar_a else a
    return _choice(data, arr, p, n_inputs, shape, bool(replace), axis, _gumbel_mode(mode),
                   scalar_a)
