"""jax.scipy.stats.gaussian_kde against JAX's recorded results (tests/data/gaussian_kde_cases.py,
recorded by reference/make_gaussian_kde_reference.py: every method and bandwidth rule, weights,
1-D and 2-D, gradients, resampling, through jit as a pytree, x64), plus its pytree structure
and its errors. That it loads on first use is checked with jax.image's lazy loading, in one
subprocess (tests/image/test_image.py)."""
import dataclasses

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from gaussian_kde_cases import cases, ulps
from recorded_modes import cases_test

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy.stats as stats
from jxkernel.scipy.stats import gaussian_kde


test_every_case_matches_jax = cases_test(cases, (jax, jnp, stats), "gaussian_kde_reference.npz",
                                         ulps)


def _unflattened(d: int = 2, n: int = 4):
    """An estimator made from its leaves (nothing computed, nothing compiled)."""
    eye = np.eye(d, dtype=np.float32)
    leaves = [np.float32(n), np.zeros((d, n), np.float32), np.full(n, 1 / n, np.float32),
              eye, eye]
    return gaussian_kde.tree_unflatten(None, leaves), leaves


def test_a_frozen_dataclass_and_a_pytree_of_five_leaves():
    kde, leaves = _unflattened()
    children, treedef = jax.tree_util.tree_flatten(kde)
    assert treedef.num_leaves == 5 and kde.tree_flatten()[1] is None
    assert all(a is b for a, b in zip(children, leaves))
    assert (kde.d, kde.n) == (2, 4) and type(kde.d) is int
    assert [f.name for f in dataclasses.fields(gaussian_kde)] == [
        "neff", "dataset", "weights", "covariance", "inv_cov"]
    assert gaussian_kde.__slots__ == ("neff", "dataset", "weights", "covariance", "inv_cov")
    with pytest.raises(dataclasses.FrozenInstanceError):
        kde.neff = 3.0
    mapped = jax.tree_util.tree_map(lambda x: x, kde)
    assert type(mapped) is gaussian_kde and mapped.inv_cov is leaves[4]


def test_bad_arguments_raise_jaxs_exceptions():
    kde, _ = _unflattened()
    with pytest.raises(TypeError, match="gaussian_kde requires ndarray or scalar arguments"):
        gaussian_kde([1.0, 2.0])
    with pytest.raises(ValueError, match="`dataset` input should have multiple elements"):
        gaussian_kde(np.ones(1, np.float32))
    with pytest.raises(NotImplementedError, match="does not support complex data"):
        gaussian_kde(np.ones(3, np.complex64))
    with pytest.raises(ValueError, match="`weights` input should be of length n .the 3 data"):
        gaussian_kde(np.ones(3, np.float32), weights=np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"one-dimensional; got shape \(3, 1\)"):
        gaussian_kde(np.ones(3, np.float32), weights=np.ones((3, 1), np.float32))
    with pytest.raises(ValueError, match="`bw_method` should be 'scott', 'silverman'.*'foo'"):
        gaussian_kde(np.arange(3.0, dtype=np.float32), bw_method="foo")
    with pytest.raises(ValueError, match="points have dimension 3, dataset has dimension 2"):
        kde.evaluate(np.ones((3, 2), np.float32))
    with pytest.raises(NotImplementedError, match="does not support complex coordinates"):
        kde.logpdf(np.ones((2, 2), np.complex64))
    with pytest.raises(ValueError, match="integrate_box_1d\\(\\) only handles 1D pdfs"):
        kde.integrate_box_1d(0.0, 1.0)
    with pytest.raises(ValueError, match=r"mean does not have dimension 2: its shape is \(3,\)"):
        kde.integrate_gaussian(np.ones(3, np.float32), np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match="KDEs are not the same dimensionality: 2 and 1"):
        kde.integrate_kde(_unflattened(d=1)[0])
    with pytest.raises(NotImplementedError, match="changing the bandwidth method"):
        kde.set_bandwidth("silverman")
    with pytest.raises(NotImplementedError, match="use `integrate_box_1d`"):
        kde.integrate_box(np.zeros(2), np.ones(2))


def test_docstring_examples():
    check_docstring_examples("jxkernel.scipy.stats.kde")

