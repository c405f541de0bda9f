"""A warning a learner's call makes names the learner's line (`In[3], line 2` in a notebook),
not a file of jxkernel's: core/source_info.user_stacklevel. JAX 0.10.2 raises the same
warnings (the same words), pointing at its own files (its scatter's at jax/_src/ops/scatter.py),
which a learner cannot act on."""
import warnings

import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy.signal

MISTAKES = {
    # a float set into an int array: JAX's FutureWarning, the value cast
    "scatter_cast": (lambda: jnp.zeros(3, dtype=int).at[0].set(1.5), FutureWarning,
                     "scatter inputs have incompatible types"),
    # a segment longer than the signal
    "stft_nperseg": (lambda: jxkernel.scipy.signal.stft(jnp.ones(8), nperseg=16), UserWarning,
                     "nperseg=16 is greater than input_length=8"),
    # rank promotion warned of, under jnp.vectorize
    "vectorize_ranks": (lambda: jnp.vectorize(jnp.add, signature="(),()->()")(
        jnp.ones((2, 3)), jnp.ones(3)), UserWarning, "require rank promotion"),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_the_warning_names_the_line_that_made_it(name):
    make, category, words = MISTAKES[name]
    with warnings.catch_warnings(record=True) as caught, \
            jax.numpy_rank_promotion("warn"):
        warnings.simplefilter("always")
        make()
    (warned,) = [w for w in caught if words in str(w.message)]
    assert issubclass(warned.category, category)
    assert warned.filename == __file__, warned.filename
