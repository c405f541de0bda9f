"""The `rbg` and `unsafe_rbg` PRNG implementations (issue 46), run by
reference/make_rbg_reference.py (JAX 0.10.2, into rbg_reference.json) and by
tests/random/test_rbg.py (jxkernel), which compares the two.

Both keep 4 uint32 words per key. rbg derives keys with Threefry (each half of the key split or
folded on its own) and draws bits with XLA's RngBitGenerator; unsafe_rbg derives keys with
RngBitGenerator too. An array is recorded as its dtype, shape and bit pattern (floats viewed as
unsigned ints); an error as its class and message. Which floats may differ per CPU, and by how
many ulps, is FLOAT_BOUNDS (the rest compare bit for bit).
"""
import importlib
import re

import numpy as np

from recorded_bits import array_bits as _array

IMPLS = ("rbg", "unsafe_rbg")
SEEDS = (0, 42, -1, 2 ** 40 + 5)

# case-name suffix -> ulps: floats from transcendental functions (XLA's vectorized log/erf
# differ by a few ulps between CPUs); uniform and the integer samplers are exact by construction
FLOAT_BOUNDS = {"normal": 4, "gamma": 16, "exponential": 4}




def _said(f):
    try:
        f()
        return "ok"
    except Exception as e:       # the class and JAX's words, an implementation by its name
        said = re.sub(r"PRNGImpl\(.*name='(\w+)', tag='\w+'\)", r"\1", str(e))
        return f"{type(e).__name__}: {said}"


def _per_impl(jax, impl):
    r = importlib.import_module(f"{jax.__name__}.random")
    k, data = r.key(42, impl=impl), r.key_data
    out = {}
    for seed in SEEDS:
        out[f"key_data(key({seed}))"] = _array(data(r.key(seed, impl=impl)))
        out[f"PRNGKey({seed})"] = _array(r.PRNGKey(seed, impl=impl))
    out["str(key.dtype)"] = str(k.dtype)
    out["repr(key)"] = repr(r.key(3, impl=impl))
    out["key_impl(key)"] = str(r.key_impl(k))
    out["typeof(key)"] = str(jax.typeof(r.split(k, 3)))
    out["key_dtype(impl)"] = str(r.key_dtype(impl))
    out["split(key)"] = _array(data(r.split(k)))
    out["split(key, 5)"] = _array(data(r.split(k, 5)))
    out["split(key, (2, 3))"] = _array(data(r.split(k, (2, 3))))
    out["split(split(key)[1])"] = _array(data(r.split(r.split(k)[1])))
    out["fold_in(key, 7)"] = _array(data(r.fold_in(k, 7)))
    out["fold_in(key, 2**31 + 5)"] = _array(data(r.fold_in(k, 2 ** 31 + 5)))
    out["bits(key)"] = _array(r.bits(k))
    out["bits(key, (8,))"] = _array(r.bits(k, (8,)))
    out["bits(key, (3, 5))"] = _array(r.bits(k, (3, 5)))
    out["bits(key, (9,), uint8)"] = _array(r.bits(k, (9,), np.uint8))
    out["bits(key, (9,), uint16)"] = _array(r.bits(k, (9,), np.uint16))
    out["bits(fold_in(key, 3), (4,))"] = _array(r.bits(r.fold_in(k, 3), (4,)))
    out["uniform(key, (8,))"] = _array(r.uniform(k, (8,)))
    out["uniform(key, (8,), float16)"] = _array(r.uniform(k, (8,), np.float16))
    out["normal(key, (8,)) normal"] = _array(r.normal(k, (8,)))
    out["randint(key, (8,), 0, 100)"] = _array(r.randint(k, (8,), 0, 100))
    out["bernoulli(key, 0.3, (8,))"] = _array(r.bernoulli(k, 0.3, (8,)))
    out["permutation(key, 10)"] = _array(r.permutation(k, 10))
    out["categorical(key, logits, shape=(6,))"] = _array(
        r.categorical(k, np.log(np.array([0.1, 0.2, 0.7], np.float32)), shape=(6,)))
    out["exponential(key, (4,)) exponential"] = _array(r.exponential(k, (4,)))
    out["gamma(key, 2.5, (4,)) gamma"] = _array(r.gamma(k, 2.5, (4,)))
    out["poisson(key, 3.0)"] = _said(lambda: r.poisson(k, 3.0))
    out["jit(uniform)(key)"] = _array(jax.jit(lambda k: r.uniform(k, (4,)))(k))
    out["jit(split)(key)"] = _array(data(jax.jit(r.split)(k)))
    # under vmap, RngBitGenerator's batching draws the batch from the first key alone (JAX's)
    keys = r.split(k, 3)
    out["vmap(bits)(keys)"] = _array(jax.vmap(lambda k: r.bits(k, (2,)))(keys))
    out["vmap(split)(keys)"] = _array(data(jax.vmap(r.split)(keys)))
    out["vmap(fold_in)(keys, [1, 2, 3])"] = _array(
        data(jax.vmap(r.fold_in)(keys, np.array([1, 2, 3], np.uint32))))
    out["key == key"] = _array(r.key(1, impl=impl) == r.key(1, impl=impl))
    out["wrap_key_data(zeros(4))"] = _array(r.bits(r.wrap_key_data(np.zeros(4, np.uint32),
                                                                   impl=impl), (3,)))
    out["wrap_key_data(zeros(2))"] = _said(
        lambda: r.wrap_key_data(np.zeros(2, np.uint32), impl=impl))
    # the default implementation: PRNGKey, and raw keys given to the samplers, take it
    jax.config.update("jax_default_prng_impl", impl)
    try:
        raw = r.PRNGKey(7)
        out["default: PRNGKey(7)"] = _array(raw)
        out["default: split(PRNGKey(7))"] = _array(r.split(raw))
        out["default: fold_in(PRNGKey(7), 2)"] = _array(r.fold_in(raw, 2))
        out["default: uniform(PRNGKey(7), (4,))"] = _array(r.uniform(raw, (4,)))
        out["default: str(key(7).dtype)"] = str(r.key(7).dtype)
        out["default: uniform(threefry key data)"] = _said(
            lambda: r.uniform(np.zeros(2, np.uint32)))
    finally:
        jax.config.update("jax_default_prng_impl", "threefry2x32")
    return out


def run(jax):
    r = importlib.import_module(f"{jax.__name__}.random")
    out = {}
    for impl in IMPLS:
        out.update({f"{impl}: {name}": value for name, value in _per_impl(jax, impl).items()})
    # a raw 4-word key with the default (threefry) implementation; an unknown name
    out["uniform(PRNGKey(0, impl='rbg'))"] = _said(lambda: r.uniform(r.PRNGKey(0, impl="rbg")))
    out["key(0, impl='nope')"] = _said(lambda: r.key(0, impl="nope"))
    out["config.update('jax_default_prng_impl', 'nope')"] = _said(
        lambda: jax.config.update("jax_default_prng_impl", "nope"))
    out["key(0, impl='rbg') == key(0)"] = _said(lambda: r.key(0, impl="rbg") == r.key(0))
    return out
