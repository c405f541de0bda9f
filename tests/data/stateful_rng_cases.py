"""Cases for jax.experimental.random (StatefulPRNG, stateful_rng) run alike by JAX 0.10.2
(reference/make_stateful_rng_reference.py, into stateful_rng_reference.json) and by jxkernel
(tests/jax_compat/test_stateful_rng.py). `run(jax, random)` (`random` the library's jax.experimental.random) returns {case: record}: keys and integers
as their exact values, floats as float32 bit patterns (compared within a stated ulp bound by
the test), errors as "Class: message".
"""
import importlib

import numpy as np


def _rec(x):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return {"dtype": x.dtype.name, "shape": list(x.shape),
                "bits": x.astype(np.float32).view(np.uint32).ravel().tolist()}
    return {"dtype": x.dtype.name, "shape": list(x.shape), "value": x.ravel().tolist()}


def _key(jax, k):
    return {"key": str(k.dtype), "shape": list(k.shape),
            "data": np.asarray(jax.random.key_data(k)).ravel().tolist()}


def _error(f):
    try:
        f()
    except Exception as e:          # the class and JAX's words, compared exactly
        return f"{type(e).__name__}: {e}"
    return "no error"


def run(jax, random=None) -> dict:
    if random is None:          # the library's own experimental.random, through `jax` as given
        random = importlib.import_module(jax.__name__ + ".experimental.random")
    jnp = jax.numpy
    out = {}
    rng = random.stateful_rng(42)
    out["repr"] = repr(rng)
    out["keys"] = [_key(jax, rng.key()) for _ in range(3)]
    out["keys_shaped"] = _key(jax, rng.key((2, 3)))
    out["counter_after"] = _rec(rng._counter[...])
    rng = random.stateful_rng(7)
    out["uniform"] = [_rec(rng.uniform()) for _ in range(2)]
    out["uniform_size"] = _rec(rng.uniform(-1.0, 3.0, size=5))
    out["uniform_broadcast"] = _rec(rng.uniform(jnp.zeros(3), 2.0))
    out["random"] = _rec(rng.random((2, 2)))
    out["normal"] = _rec(rng.normal(size=4))
    out["normal_loc_scale"] = _rec(rng.normal(jnp.arange(3.0), 0.5))
    out["integers"] = _rec(rng.integers(10, size=6))
    out["integers_low_high"] = _rec(rng.integers(-5, 5, (2, 3)))
    out["counter_after_draws"] = _rec(rng._counter[...])

    # under jit: the counter is a Ref the jitted function closes over, or is passed
    rng = random.stateful_rng(3)
    draw = jax.jit(rng.uniform)
    out["jit_closed"] = [_rec(draw()) for _ in range(3)]
    out["jit_closed_counter"] = _rec(rng._counter[...])
    rng = random.stateful_rng(3)
    passed = jax.jit(lambda r, x: x + r.normal(size=2))
    out["jit_passed"] = [_rec(passed(rng, jnp.ones(2))) for _ in range(2)]
    out["jit_passed_counter"] = _rec(rng._counter[...])
    made = jax.jit(lambda s: random.stateful_rng(s).integers(100, size=3))
    out["jit_made_inside"] = _rec(made(5))

    # split children under vmap, spawned children, each with its own counter
    rng = random.stateful_rng(123)
    children = rng.split(3)
    out["split_keys"] = _key(jax, children._base_key)
    out["split_vmap"] = [_rec(jax.vmap(lambda r: r.uniform())(children)) for _ in range(2)]
    out["split_counters"] = _rec(children._counter[...])
    out["split_2d"] = _key(jax, rng.split((2, 2))._base_key)
    out["spawn"] = [_rec(r.integers(0, 10, 2)) for r in random.stateful_rng(123).spawn(3)]
    out["parent_counter_after_split"] = _rec(rng._counter[...])

    # another implementation, and errors (JAX's words)
    rng = random.stateful_rng(1, impl="rbg")
    out["rbg_key"] = _key(jax, rng.key())
    out["rbg_uniform"] = _rec(rng.uniform(size=3))
    out["error_split_key"] = _error(lambda: random.stateful_rng(0).split(2).key())
    out["error_base_key"] = _error(lambda: random.StatefulPRNG(jnp.zeros(2), jax.new_ref(0)))
    out["error_counter"] = _error(
        lambda: random.StatefulPRNG(jax.random.key(0), jnp.int32(0)))
    out["error_unseeded_in_jit"] = _error(lambda: jax.jit(lambda: random.stateful_rng().key())())
    unseeded = random.stateful_rng()
    out["unseeded_counter"] = _rec(unseeded._counter[...])
    out["unseeded_key_type"] = str(unseeded._base_key.dtype)
    return out
