"""jxkernel.nn and jxkernel.scipy.special against JAX's recorded results
(tests/data/jnp_cases.py) and NumPy formulas; derivatives where JAX defines custom rules."""
import math

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.nn as nn
import jxkernel.numpy as jnp
from jxkernel.scipy import special

from jnp_check import matches_jax_tests
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp


test_matches_jax_eager, test_matches_jax_jit_types, test_matches_jax_jit_values, \
    test_matches_jax_x64_types = matches_jax_tests("nn", "special", every=4)


X = np.array([[-3.0, -0.5, 0.0, 0.5, 2.0], [10.0, -10.0, 1.0, 3.0, -1.0]], np.float32)
X64 = X.astype(np.float64)     # NumPy's references: computed in float64, rounded once to float32


def f32(x):
    return np.asarray(x, np.float64).astype(np.float32)


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize("name,ref", [
    ("relu", lambda x: np.maximum(x, 0)),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("softplus", lambda x: np.logaddexp(x, 0)),
    ("silu", lambda x: x / (1 + np.exp(-x))),
    ("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    ("leaky_relu", lambda x: np.where(x >= 0, x, 0.01 * x)),
    ("relu6", lambda x: np.clip(x, 0, 6)),
    ("hard_tanh", lambda x: np.clip(x, -1, 1)),
    ("log_sigmoid", lambda x: -np.logaddexp(-x, 0)),
])
def test_activations_vs_numpy(name, ref):
    assert_allclose_ulp(np.asarray(getattr(nn, name)(X)), f32(ref(X64)), ELEMENTWISE, err_msg=name)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_family_vs_numpy(axis):
    want = _np_softmax(X64, axis)
    assert_allclose_ulp(np.asarray(nn.softmax(X, axis=axis)), f32(want), REDUCTION)
    # x - max(x) - log(sum) cancels where x is the maximum: log of a sum near 1 is only as
    # exact as that sum's rounding, so errors are measured at the scale of 1
    assert_allclose_ulp(np.asarray(nn.log_softmax(X, axis=axis)), f32(np.log(want)), REDUCTION,
                        scale=1.0)
    lse = np.log(np.exp(X64 - X64.max()).sum(axis)) + X64.max()
    assert_allclose_ulp(np.asarray(special.logsumexp(X, axis=axis)), f32(lse), REDUCTION)


def test_softmax_is_stable_for_large_inputs():
    out = nn.softmax(jnp.array([1000.0, 1000.0]))
    assert np.asarray(out).tolist() == [0.5, 0.5]            # exp(0) / 2: exact
    assert_allclose_ulp(np.asarray(special.logsumexp(jnp.array([1000.0, 1000.0]))),
                        f32(1000 + np.log(2)), ELEMENTWISE)


def test_logsumexp_signs_and_where():
    out, sign = special.logsumexp(jnp.array([1.0, 1.0]), b=jnp.array([1.0, -2.0]),
                                  return_sign=True)
    assert_allclose_ulp(np.asarray(out), np.float32(1.0), ELEMENTWISE)   # log|e - 2e|
    assert float(sign) == -1.0
    assert np.isnan(float(special.logsumexp(jnp.array([1.0, 1.0]), b=jnp.array([1.0, -2.0]))))
    masked = special.logsumexp(X, axis=1, where=X > 0)
    want = [np.log(np.exp(r[r > 0]).sum()) for r in X64]
    assert_allclose_ulp(np.asarray(masked), f32(want), REDUCTION)


def test_gelu_forms():
    x = np.linspace(-3, 3, 7)
    # 1 + erf(.) and 1 + tanh(.) cancel for x < 0: errors are measured at the size of x / 2
    scale = np.abs(x) / 2
    exact = 0.5 * x * (1 + np.array([math.erf(v / np.sqrt(2)) for v in x]))
    assert_allclose_ulp(np.asarray(nn.gelu(f32(x), approximate=False)), f32(exact), ELEMENTWISE,
                        scale=scale)
    approx = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    assert_allclose_ulp(np.asarray(nn.gelu(f32(x))), f32(approx), ELEMENTWISE, scale=scale)


def test_one_hot_and_standardize():
    out = nn.one_hot(jnp.array([0, 2, 5]), 3)
    assert np.asarray(out).tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    assert out.dtype == np.float32
    z = np.asarray(nn.standardize(X))
    # each row's mean is a sum of terms of size ~1 that cancels: measured at that scale
    assert_allclose_ulp(z.mean(-1), np.zeros(2, np.float32), REDUCTION, scale=1.0)
    with pytest.warns(DeprecationWarning, match="integer-typed"):
        nn.one_hot(jnp.array([0.0, 1.0]), 2)


def test_custom_derivatives_at_kinks():
    """relu'(0) = 0 and relu6'(0) = relu6'(6) = 0, as JAX's custom JVP rules say."""
    g = jax.grad(lambda x: nn.relu(x).sum())(jnp.array([-1.0, 0.0, 2.0]))
    assert np.asarray(g).tolist() == [0.0, 0.0, 1.0]
    g6 = jax.grad(lambda x: nn.relu6(x).sum())(jnp.array([0.0, 3.0, 6.0]))
    assert np.asarray(g6).tolist() == [0.0, 1.0, 0.0]
    dx = jax.grad(lambda x: special.xlogy(x, 2.0))(0.0)
    assert_allclose_ulp(np.asarray(dx), f32(np.log(2.0)), ELEMENTWISE)


def test_special_vs_numpy():
    x = np.array([0.1, 0.5, 1.0, 2.5, 7.0], np.float32)
    x64 = x.astype(np.float64)
    from math import erf, erfc, lgamma
    assert_allclose_ulp(np.asarray(special.erf(x)), f32([erf(v) for v in x64]), ELEMENTWISE)
    assert_allclose_ulp(np.asarray(special.erfc(x)), f32([erfc(v) for v in x64]), ELEMENTWISE)
    # lgamma(1) = 0: the error of a result near a zero is measured at the scale of 1; XLA's
    # float32 lgamma is 4 ulps from the correctly rounded value at 7
    assert_allclose_ulp(np.asarray(special.gammaln(x)), f32([lgamma(v) for v in x64]), 8,
                        scale=1.0)
    assert_allclose_ulp(np.asarray(special.expit(x)), f32(1 / (1 + np.exp(-x64))), ELEMENTWISE)
    p = np.array([0.1, 0.5, 0.9], np.float32)
    p64 = p.astype(np.float64)
    assert_allclose_ulp(np.asarray(special.logit(p)), f32(np.log(p64 / (1 - p64))), ELEMENTWISE)
    assert_allclose_ulp(np.asarray(special.erf(special.erfinv(p))), p, ELEMENTWISE)
    assert float(special.xlogy(0.0, 0.0)) == 0.0 and float(special.entr(0.0)) == 0.0
