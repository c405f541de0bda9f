"""scaled_dot: (lhs * lhs_scale) @ (rhs * rhs_scale) with block scales along the contracting
dimensions (microscaling, mxfp8), as JAX's lax.scaled_dot (jax/_src/lax/scaled_dot.py).

    >>> lhs, rhs = jnp.ones((2, 64), jnp.float8_e4m3fn), jnp.ones((64, 3), jnp.float8_e4m3fn)
    >>> lax.scaled_dot(lhs, rhs, preferred_element_type=jnp.float32)[0]
    Array([64., 64., 64.], dtype=float32)

Each scale covers a block of its operand's contracting dimension (a size dividing it, at
least 2 values a block); a missing scale is ones. It lowers, as JAX's, to the composite
`xla.scaled_dot` whose decomposition widens operands and scales to bfloat16, multiplies, and
takes dot_general in `preferred_element_type` (bfloat16 by default). As in JAX it has no
derivative; vmap adds a batch dimension.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, lowering_rules,
                              numpy_rules)
from ..transforms import batch_util as bu
from . import _lowering as hl
from .composites import composite
from .conversion import convert_element_type
from .dot import dot_general
from .elementwise import mul
from .shapes import broadcast_in_dim, reshape

scaled_dot_p = Primitive("scaled_dot")


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """`(lhs * lhs_scale) @ (rhs * rhs_scale)` (dot_general's `dimension_numbers`; by default
    the last dimension of lhs with the second last of rhs, batched over the leading ones)."""
    if dimension_numbers is None:
        n = np.ndim(lhs)
        if n in (0, 1):
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        batch = tuple(range(n - 2))
        dimension_numbers = (((n - 1,), (n - 2,)), (batch, batch))
    dimension_numbers = _canonical_dims(dimension_numbers)
    (lhs_contracting, rhs_contracting), _ = dimension_numbers
    if lhs_scale is None:
        lhs_scale = _ones_scale(lhs, lhs_contracting)
    if rhs_scale is None:
        rhs_scale = _ones_scale(rhs, rhs_contracting)
    element_type = dtypes.bfloat16 if preferred_element_type is None else \
        dtypes.canonicalize_user_dtype(preferred_element_type, "scaled_dot")
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
                             preferred_element_type=element_type)


def _canonical_dims(dims):
    (lc, rc), (lb, rb) = dims
    return (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))


def _ones_scale(operand, contracting):
    """A scale of ones, one block per contracting dimension (JAX's dummy, e8m0 ones)."""
    shape = [1 if d in contracting else s for d, s in enumerate(np.shape(operand))]
    return np.ones(shape, dtypes.float8_e8m0fnu)


# ------------------------------------------------------------------ checks (JAX's words)
def _check_scale(side, operand, scale, contracting):
    for i, size in enumerate(operand.shape):
        if i in contracting:
            if size % scale.shape[i] != 0:
                raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by "
                                f"its scale's dim size {scale.shape[i]}.")
            if size // scale.shape[i] < 2:
                raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size"
                                f" ({size // scale.shape[i]}) must be at least 2.")
        elif scale.shape[i] != size:
            raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                            f"{scale.shape[i]}.")


def _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) > 1:
        raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} "
                        f"rhs rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: "
                        f"{rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise TypeError("LHS and RHS must have the same number of batch dimensions, got "
                        f"{len(lb)} and {len(rb)}.")
    if len(lc) != len(rc):
        raise TypeError("LHS and RHS must have the same number of contracting dimensions, got "
                        f"{len(lc)} and {len(rc)}.")
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) > 1:
            raise TypeError("All input tensors must have the same batch dimension size for "
                            f"batch dims ({i}, {j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS "
                            f"contracting dim {j} of size {rhs.shape[j]}.")
    _check_scale("LHS", lhs, lhs_scale, lc)
    _check_scale("RHS", rhs, rhs_scale, rc)


def _scaled_dot_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                              preferred_element_type):
    _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    kept = lambda shape, c, b: [shape[i] for i in range(len(shape)) if i not in c and i not in b]
    shape = ([lhs.shape[i] for i in lb] + kept(lhs.shape, lc, lb) + kept(rhs.shape, rc, rb))
    return ShapedArray(tuple(shape), preferred_element_type)


# ------------------------------------------------------------------ the decomposition
def _scale_broadcast(scale, shape, contracting):
    """Each scale repeated over its block: scale's shape made the operand's."""
    for i in contracting:
        s_shape = get_aval(scale).shape
        if s_shape[i] != shape[i]:
            block = shape[i] // s_shape[i]
            expanded = s_shape[:i + 1] + (1,) + s_shape[i + 1:]
            scale = broadcast_in_dim(scale, expanded, tuple(d for d in range(len(expanded))
                                                            if d != i + 1))
            wide = s_shape[:i + 1] + (block,) + s_shape[i + 1:]
            scale = broadcast_in_dim(scale, wide, tuple(range(len(wide))))
            scale = reshape(scale, s_shape[:i] + (shape[i],) + s_shape[i + 1:])
    return scale


def _scaled(operand, scale, contracting):
    scale = _scale_broadcast(scale, get_aval(operand).shape, contracting)
    return mul(convert_element_type(operand, dtypes.bfloat16),
               convert_element_type(scale, dtypes.bfloat16))


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    (lc, rc), _ = dimension_numbers
    return dot_general(_scaled(lhs, lhs_scale, lc), _scaled(rhs, rhs_scale, rc),
                       dimension_numbers, preferred_element_type=preferred_element_type)


_xla_scaled_dot = composite(_decomposition, name="xla.scaled_dot")


def _scaled_dot_impl_fun(*args, dimension_numbers, preferred_element_type):
    return _xla_scaled_dot(*args, dimension_numbers=dimension_numbers,
                           preferred_element_type=preferred_element_type)


def _scaled_dot_batching(vals, dims, *, dimension_numbers, preferred_element_type):
    size = next(get_aval(x).shape[d] for x, d in zip(vals, dims) if d is not None)
    vals = [bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    (lc, rc), (lb, rb) = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)
    dims = ((up(lc), up(rc)), ((0, *up(lb)), (0, *up(rb))))
    return scaled_dot_p.bind(*vals, dimension_numbers=dims,
                             preferred_element_type=preferred_element_type), 0


abstract_eval_rules[scaled_dot_p] = _scaled_dot_abstract_eval
lowering_rules[scaled_dot_p] = hl.lower_fun(_scaled_dot_impl_fun)
numpy_rules[scaled_dot_p] = hl.numpy_fun(_scaled_dot_impl_fun)
batching_rules[scaled_dot_p] = _scaled_dot_batching
# (no jvp rule: JAX's scaled_dot "isn't differentiable", so differentiating it raises)
