"""64-bit dtypes without x64, under each jax_explicit_x64_dtypes mode, against JAX 0.10.2's
recorded answers (tests/data/x64_warn_cases.py, recorded by
reference/make_x64_warn_reference.py): what lax's and jnp's dtype arguments, full_like,
promotion of values made under enable_x64 and ShapeDtypeStructs give, and the exact words of
every warning ('warn' narrows with JAX's warning, 'error' raises its ValueError, 'allow'
keeps the dtype). Integer and float values here are exact (ones, iotas, sums of small
integers), but for a sine's. DIFFERENT would name jxkernel's deliberate differences (none now)."""
import json
import warnings

import numpy as np
import pytest
from numerics import ELEMENTWISE, assert_tree_close  # tests/support
from x64_warn_cases import DIFFERENT, run

import jxkernel as jax
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("x64_warn_reference.json")


@pytest.fixture(scope="module")
def got():
    # run() calls jax.clear_caches() before each of its 228 cases, so that each traces afresh
    # and raises a first call's warnings (raised while tracing, in Python). The executables
    # kept by module text are no part of that (compiling a text warns nothing): kept across
    # those clears, a program an earlier case compiled loads again (the same text, options
    # and device), and the worker keeps the programs of the files it ran before
    from jxkernel.xla import memory
    clear_caches = jax.clear_caches

    def clear_all_but_executables():
        kept = memory._memory_cache.items()
        clear_caches()
        memory._memory_cache.update(kept)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jax, "clear_caches", clear_all_but_executables)
        # nor is handing freed heap pages back to the system (glibc's malloc_trim, at each
        # clear: ~1 ms, 228 times)
        patch.setattr(memory, "trim_heap", lambda: None)
        return json.loads(json.dumps(run(jax)))


def test_every_case_is_recorded(got):
    assert set(got) == set(REF)
    assert set(DIFFERENT) <= set(got)


@pytest.mark.parametrize("name", sorted(set(REF) - set(DIFFERENT)))
def test_case_matches_jax(got, name):
    # [observation, warnings' words]: both exactly, but for the values of the x64_sin cases
    # (a sine: XLA's, or the C library's in float64, moves a last bit per CPU), within
    # ELEMENTWISE ulps of their dtype
    if name.endswith(("x64_sin_float64", "x64_sin_int64")):
        (_, dtype, _), _ = REF[name]
        assert_tree_close(got[name], REF[name], ELEMENTWISE, dtype=np.dtype(dtype), err_msg=name)
    else:
        assert got[name] == REF[name], name


def test_jnp_functions_pass_no_64_bit_dtype_to_lax_themselves():
    # jxkernel's own calls narrow nothing a user did not name: a broad set of jnp functions
    # on 32-bit values raises none of these warnings (turned into errors here)
    jnp = jax.numpy
    x, i = jnp.linspace(-1.0, 2.0, 6), jnp.arange(6)
    key = jax.random.key(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Explicitly requested dtype")
        for fun in (jnp.sin, jnp.mean, jnp.var, jnp.std, jnp.cumsum, jnp.argsort, jnp.sort,
                    jnp.median, jnp.unique, jnp.fft.fft, jnp.round, jnp.signbit, jnp.spacing,
                    jnp.i0, jnp.sinc, jnp.argmax, jnp.nanmean, jnp.histogram, jnp.diff,
                    jnp.nonzero, jnp.flip, jax.nn.softmax):
            fun(x)
        for fun in (jnp.sum, jnp.prod, jnp.bincount, jnp.packbits, jnp.vander, jnp.cumprod,
                    jnp.argwhere, jnp.count_nonzero, jnp.bitwise_count, jnp.abs):
            fun(i)
        jnp.searchsorted(x, 0.5), jnp.quantile(x, 0.5), jnp.indices((2, 3)), jnp.eye(3)
        jnp.linalg.inv(jnp.eye(3) * 2), jnp.einsum("i,i", x, x), jnp.digitize(x, x)
        jax.random.uniform(key, (3,)), jax.random.randint(key, (3,), 0, 5)
        jax.nn.one_hot(i, 6), jax.lax.full_like(x, 2), jnp.unravel_index(i, (2, 3))
