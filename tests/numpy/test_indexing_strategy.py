"""rewriting_take's `strategy` (jax._src.numpy.indexing.IndexingStrategy) and the
`jax_check_static_indices` option, as JAX 0.10.2's own tests/lax_numpy_indexing_test.py
exercises them: every strategy gives NumPy's answer where the index fits it, and a forced
strategy the index does not fit raises JAX's error with JAX's words (the messages of that
test file, which JAX passes)."""
import warnings

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel._jax._src.config import config_states
from jxkernel._jax._src.dtypes import safe_to_cast
from jxkernel._jax._src.numpy.indexing import IndexingStrategy, rewriting_take

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
STATIC = [1, -1, (slice(None), 2), (Ellipsis, slice(None, None, -2)), (None, 0, slice(1, 3)),
          (slice(3, 0, -1), 1)]
DYNAMIC = [1, -2, (slice(None), 2), (0, slice(1, 3)), (slice(None, None, -1), 1)]
GATHER = STATIC + [(np.array([2, 0]),), (np.array([[1], [0]]), slice(None), 2),
                   (X[..., 0] > 20,)]


@pytest.mark.parametrize("idx", STATIC)
def test_static_slice_is_numpys(idx):
    got = rewriting_take(X, idx, strategy=IndexingStrategy.STATIC_SLICE)
    np.testing.assert_array_equal(np.asarray(got), X[idx])      # exact: a slice moves values


@pytest.mark.parametrize("idx", DYNAMIC)
@pytest.mark.parametrize("jitted", [False, True])
def test_dynamic_slice_is_numpys(idx, jitted):
    take = lambda x: rewriting_take(x, idx, strategy=IndexingStrategy.DYNAMIC_SLICE)
    got = (jxkernel.jit(take) if jitted else take)(X)
    np.testing.assert_array_equal(np.asarray(got), X[idx])


@pytest.mark.parametrize("idx", GATHER)
def test_gather_is_numpys(idx):
    got = rewriting_take(X, idx, strategy=IndexingStrategy.GATHER)
    np.testing.assert_array_equal(np.asarray(got), X[idx])


def test_forced_strategy_shows_in_the_jaxpr():
    def ops(strategy):
        jaxpr = jxkernel.make_jaxpr(lambda x: rewriting_take(x, (1, slice(None)),
                                                             strategy=strategy))(X)
        return {e.primitive.name for e in jaxpr.jaxpr.eqns}
    assert "slice" in ops(IndexingStrategy.STATIC_SLICE)
    assert "dynamic_slice" in ops(IndexingStrategy.DYNAMIC_SLICE)
    assert "gather" in ops(IndexingStrategy.GATHER)


@pytest.mark.parametrize("shape, idx, error, message", [
    ((2,), -4, IndexError, "index -4 out of bounds for axis 0 with size 2"),
    ((2, 3), np.index_exp[..., -4], IndexError, "index -4 out of bounds for axis 1 with size 3"),
    ((2, 3), ([1, 2], 0), TypeError, "static_slice: indices must be static scalars or slices."),
    ((2, 3), (1, 2, 3), IndexError, "Too many indices: array is 2-dimensional, but 3 were indexed"),
])
def test_static_slice_refuses_as_jax(shape, idx, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(".", r"\.")):
        rewriting_take(jnp.zeros(shape), idx, strategy=IndexingStrategy.STATIC_SLICE)


def test_refusals_of_dynamic_slice_and_strategy_type():
    with pytest.raises(TypeError, match="dynamic_slice: only unit steps supported in slice"):
        rewriting_take(X, slice(None, None, 2), strategy=IndexingStrategy.DYNAMIC_SLICE)
    with pytest.raises(TypeError, match="dynamic_slice: only scalar indices allowed"):
        rewriting_take(X, np.array([0, 1]), strategy=IndexingStrategy.DYNAMIC_SLICE)
    with pytest.raises(ValueError, match="static_slice requires mode='promise_in_bounds' or mode='clip'"):
        rewriting_take(X, 0, mode="fill", strategy=IndexingStrategy.STATIC_SLICE)
    with pytest.raises(TypeError, match="Expected strategy to be IndexingStrategy; got gather"):
        rewriting_take(X, 0, strategy="gather")


@pytest.mark.parametrize("clipped", [(10,), (10, 1), (-2,)])
def test_clip_mode_clamps_under_every_strategy(clipped):
    want = X[tuple(np.clip(i, -size, size - 1) for i, size in zip(clipped, X.shape))]
    for strategy in (IndexingStrategy.AUTO, IndexingStrategy.STATIC_SLICE,
                     IndexingStrategy.DYNAMIC_SLICE, IndexingStrategy.GATHER):
        got = rewriting_take(X, clipped, mode="clip", strategy=strategy)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("shape, idx, message", [
    ((2,), 4, "index 4 out of bounds for axis 0 with size 2"),
    ((2, 3, 5), np.index_exp[:, [1, 2], 6], "index 6 out of bounds for axis 2 with size 5"),
    ((2, 3, 5), np.index_exp[np.arange(3), 6, None], "index 6 out of bounds for axis 1 with size 3"),
])
def test_check_static_indices_raises_eagerly_under_jit_and_in_at_get(shape, idx, message):
    arr = jnp.zeros(shape)
    arr[idx]                      # off (the default): clamped, no error
    with config_states["jax_check_static_indices"](True):
        for take in (lambda x: x[idx], jxkernel.jit(lambda x: x[idx]), lambda x: x.at[idx].get()):
            with pytest.raises(IndexError, match=message):
                take(arr)
    jxkernel.jit(lambda x: x[idx])(arr)      # off again, and jit traces anew


# --- more found by JAX's tests/lax_numpy_indexing_test.py
def test_index_by_a_list_of_traced_ints_under_jit():
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    take = jxkernel.jit(lambda x, idx: x[idx])       # the list's ints arrive traced
    for idx in (([0, 2],), ([[0], [2]], [1])):
        np.testing.assert_array_equal(np.asarray(take(x, idx)), x[idx])


def test_scatter_of_an_unsafely_cast_update_warns_as_jax():
    # JAX 0.10.2's words (its FutureWarning, an error in later releases)
    with jxkernel.numpy_dtype_promotion("standard"):
        with pytest.warns(FutureWarning, match=r"^scatter inputs have incompatible types: cannot "
                          r"safely cast value from dtype=int32 to dtype=int16 with "
                          r"jax_numpy_dtype_promotion=standard\. In future JAX releases"):
            out = jnp.arange(5, dtype=np.int16).at[0].set(np.int32(7))
    assert out.dtype == np.int16 and int(out[0]) == 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # safe casts and weak values: silent
        jnp.arange(5, dtype=np.int32).at[0].set(np.int16(1))
        jnp.arange(5, dtype=np.float32).at[0].set(3)


def test_safe_to_cast_as_jax():
    # the examples of JAX 0.10.2's docstring
    assert safe_to_cast("int16", "float32") and safe_to_cast("float32", "complex64")
    assert not safe_to_cast("float32", "int16") and not safe_to_cast("complex64", "float32")
