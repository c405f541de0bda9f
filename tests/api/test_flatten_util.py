"""jax.flatten_util.ravel_pytree: one flat vector of a pytree's leaves (promoted to their common
dtype) and the function that unravels it back to the leaves' own dtypes and shapes, as JAX
0.10.2 gives them (checked by hand against it; all exact: ints, dtypes and small float sums)."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.flatten_util import ravel_pytree


def test_ravel_pytree_promotes_and_unravel_casts_back():
    tree = {"a": jnp.ones(2, jnp.int32), "b": jnp.zeros(1, jnp.float16), "c": 1.0}
    flat, unravel = ravel_pytree(tree)
    assert flat.dtype == np.float32 and flat.tolist() == [1, 1, 0, 1]
    back = unravel(jnp.arange(4.0))
    assert [back[k].dtype for k in "abc"] == [np.int32, np.float16, np.float32]
    assert back["a"].tolist() == [0, 1] and back["b"].tolist() == [2] and back["c"].shape == ()
    with pytest.raises(TypeError, match="dtype int32, but expected dtype float32"):
        unravel(jnp.ones(4, jnp.int32))
    with pytest.raises(ValueError, match=r"shape \(3,\), expected shape \(4,\)"):
        unravel(jnp.ones(3))


def test_ravel_pytree_one_dtype_empty_and_under_jit():
    flat, unravel = ravel_pytree([jnp.ones(2, jnp.int32), jnp.ones((1, 1), jnp.int32)])
    assert flat.dtype == np.int32
    same_dtype_free = unravel(jnp.arange(3.0))     # one dtype: unravel keeps the given dtype
    assert same_dtype_free[1].shape == (1, 1) and same_dtype_free[1].dtype == np.float32
    assert unravel == ravel_pytree([jnp.zeros(2, jnp.int32), jnp.zeros((1, 1), jnp.int32)])[1]
    empty, unravel_empty = ravel_pytree({})
    assert empty.shape == (0,) and empty.dtype == np.float32 and unravel_empty(empty) == {}
    assert ravel_pytree([True, 1])[0].dtype == np.int32
    out = jax.jit(lambda x: ravel_pytree({"a": x, "b": 2 * x})[0])(jnp.ones(2))
    assert out.tolist() == [1, 1, 2, 2]


def test_docstring_examples():
    check_docstring_examples("jxkernel.flatten_util")
