"""symmetric_product: alpha a a^T + beta c, with all its rules (JAX's default lowering, a
batched matmul, on every platform jxkernel runs; not differentiable, as in JAX).

    >>> symmetric_product(np.float32([[1], [2]]), np.eye(2, dtype=np.float32), beta=1.)
    Array([[2., 2.],
           [2., 5.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core.avals import ShapedArray
from ...core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                               lowering_rules, numpy_rules, sharding_rules)
from ...core.interpreter_primitives import typed_constant
from .. import _lowering as hl
from .. import elementwise as ew
from .._rules import FLOAT, check_dtype, check_same_dtypes
from ._common import (_T, _batch_all_front, _dot, _dtype, _linalg_batch_dims, _not_differentiable,
                      _tril, linalg_sharding_rule, untyped_lowering)


# symmetric_product(a, c) -> alpha a @ a^T + beta c; JAX guarantees only the lower triangle
# (cuSOLVER's syrk writes no other), its default lowering computes it all.
symmetric_product_p = Primitive("symmetric_product")


def _symmetric_product_abstract_eval(a, c, *, alpha, beta):
    check_dtype("symmetric_product", a, FLOAT, position=0)
    check_dtype("symmetric_product", c, FLOAT, position=1)
    check_same_dtypes("symmetric_product", a, c)
    _linalg_batch_dims("symmetric_product", (2, 2), (a, c))
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
        # (JAX's words: its shape rule's name and (n, n) are as written there)
        raise ValueError(f"symmetric_update expects a rectangular matrix of shape (m, n) and a "
                         f"square matrix of shape (n, n). Got shapes {a.shape[-2:]} and "
                         f"{c.shape[-2:]}.")
    return ShapedArray(c.shape, c.dtype)


def _symmetric_product_impl(a, c, *, alpha, beta):
    """JAX's _symmetric_product_jax_fn: alpha * (a @ a^T at HIGHEST) + beta * c."""
    scale = lambda s, x: ew.mul(typed_constant(s, _dtype(x)), x)
    return ew.add(scale(alpha, _dot(a, _T(a))), scale(beta, c))


abstract_eval_rules[symmetric_product_p] = _symmetric_product_abstract_eval
lowering_rules[symmetric_product_p] = untyped_lowering(hl.lower_fun(_symmetric_product_impl))
sharding_rules[symmetric_product_p] = linalg_sharding_rule(symmetric_product_p, (2, 2))
numpy_rules[symmetric_product_p] = hl.numpy_fun(_symmetric_product_impl)
jvp_rules[symmetric_product_p] = _not_differentiable(symmetric_product_p)
batching_rules[symmetric_product_p] = _batch_all_front(symmetric_product_p)


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False):
    """alpha a a^T + beta c for a (..., m, n) and symmetric c (..., m, m): only the lower
    triangle is promised, unless symmetrize_output mirrors it into the upper one.

    >>> symmetric_product(np.float32([[1], [2]]), np.eye(2, dtype=np.float32), beta=1.)
    Array([[2., 2.],
           [2., 5.]], dtype=float32)
    """
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        result = ew.add(_tril(result), _T(_tril(result, -1)))
    return result
