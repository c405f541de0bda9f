"""jxkernel.nn and jxkernel.scipy.special against JAX's recorded results
(tests/data/jnp_cases.py) and NumPy formulas; derivatives where JAX defines custom rules."""
import math

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.nn as nn
import jxkernel.numpy as jnp
from jxkernel.scipy import special

from jnp_check import check, load, x64_mode


@pytest.mark.parametrize("case,ref", load("nn", "special"))
def test_matches_jax_eager(case, ref):
    check(case, ref["eager"], "eager")


@pytest.mark.parametrize("case,ref", load("nn", "special"))
def test_matches_jax_jit_types(case, ref):
    check(case, ref["jit"], "trace")


@pytest.mark.parametrize("case,ref", load("nn", "special", every=4))
def test_matches_jax_jit_values(case, ref):
    check(case, ref["jit"], "jit")


@pytest.mark.parametrize("case,ref", load("nn", "special"))
def test_matches_jax_x64_types(case, ref):
    """The same cases traced under jit with jax_enable_x64: dtypes, weak types, errors."""
    with x64_mode():
        check(case, ref["x64"], "trace")


X = np.array([[-3.0, -0.5, 0.0, 0.5, 2.0], [10.0, -10.0, 1.0, 3.0, -1.0]], np.float32)


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
    np.testing.assert_allclose(np.asarray(getattr(nn, name)(X)), ref(X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_family_vs_numpy(axis):
    want = _np_softmax(X, axis)
    np.testing.assert_allclose(np.asarray(nn.softmax(X, axis=axis)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(nn.log_softmax(X, axis=axis)), np.log(want),
                               rtol=1e-5, atol=1e-6)
    lse = np.log(np.exp(X - X.max()).sum(axis)) + X.max()
    np.testing.assert_allclose(np.asarray(special.logsumexp(X, axis=axis)), lse, rtol=1e-6)


def test_softmax_is_stable_for_large_inputs():
    out = nn.softmax(jnp.array([1000.0, 1000.0]))
    assert np.asarray(out).tolist() == [0.5, 0.5]
    assert float(special.logsumexp(jnp.array([1000.0, 1000.0]))) == pytest.approx(1000.6931)


def test_logsumexp_signs_and_where():
    out, sign = special.logsumexp(jnp.array([1.0, 1.0]), b=jnp.array([1.0, -2.0]),
                                  return_sign=True)
    assert float(out) == pytest.approx(1.0) and float(sign) == -1.0
    assert np.isnan(float(special.logsumexp(jnp.array([1.0, 1.0]), b=jnp.array([1.0, -2.0]))))
    masked = special.logsumexp(X, axis=1, where=X > 0)
    want = [np.log(np.exp(r[r > 0]).sum()) for r in X]
    np.testing.assert_allclose(np.asarray(masked), want, rtol=1e-6)


def test_gelu_forms():
    x = np.linspace(-3, 3, 7).astype(np.float32)
    exact = 0.5 * x * (1 + np.array([math.erf(v / np.sqrt(2)) for v in x]))
    np.testing.assert_allclose(np.asarray(nn.gelu(x, approximate=False)), exact, rtol=1e-6,
                               atol=1e-7)
    approx = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(np.asarray(nn.gelu(x)), approx, rtol=1e-6, atol=1e-7)


def test_one_hot_and_standardize():
    out = nn.one_hot(jnp.array([0, 2, 5]), 3)
    assert np.asarray(out).tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    assert out.dtype == np.float32
    z = nn.standardize(X)
    np.testing.assert_allclose(np.asarray(z).mean(-1), 0, atol=1e-6)
    with pytest.warns(DeprecationWarning, match="integer-typed"):
        nn.one_hot(jnp.array([0.0, 1.0]), 2)


def test_custom_derivatives_at_kinks():
    """relu'(0) = 0 and relu6'(0) = relu6'(6) = 0, as JAX's custom JVP rules say."""
    g = jax.grad(lambda x: nn.relu(x).sum())(jnp.array([-1.0, 0.0, 2.0]))
    assert np.asarray(g).tolist() == [0.0, 0.0, 1.0]
    g6 = jax.grad(lambda x: nn.relu6(x).sum())(jnp.array([0.0, 3.0, 6.0]))
    assert np.asarray(g6).tolist() == [0.0, 1.0, 0.0]
    dx = jax.grad(lambda x: special.xlogy(x, 2.0))(0.0)
    assert float(dx) == pytest.approx(np.log(2.0))


def test_special_vs_numpy():
    x = np.array([0.1, 0.5, 1.0, 2.5, 7.0], np.float32)
    from math import erf, erfc, lgamma
    np.testing.assert_allclose(np.asarray(special.erf(x)), [erf(v) for v in x], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(special.erfc(x)), [erfc(v) for v in x], rtol=2e-6)
    np.testing.assert_allclose(np.asarray(special.gammaln(x)), [lgamma(v) for v in x],
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(special.expit(x)), 1 / (1 + np.exp(-x)), rtol=1e-6)
    p = np.array([0.1, 0.5, 0.9], np.float32)
    np.testing.assert_allclose(np.asarray(special.logit(p)), np.log(p / (1 - p)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(special.erf(special.erfinv(p))), p, rtol=1e-6)
    assert float(special.xlogy(0.0, 0.0)) == 0.0 and float(special.entr(0.0)) == 0.0
