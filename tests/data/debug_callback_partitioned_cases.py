"""jax.debug.callback(f, ..., partitioned=True) in a jit over 2 devices: JAX 0.10.2 calls f once
per device with that device's shard (a replicated operand whole on each), where without
partitioned it calls f once with the whole value; in a jit on one device, and eagerly, once.
Recorded by reference/make_debug_callback_partitioned_reference.py (2 simulated CPU devices)
into tests/data/debug_callback_partitioned_reference.json; tests/lax/test_debug_callback_
partitioned.py compares. The devices call f from their own threads, so calls are sorted."""
import numpy as np


def run(jax) -> dict:
    """{case: the sorted [shape, values] (per operand) of each call of the callback}."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("dev",))
    split, whole = (jax.sharding.NamedSharding(mesh, P("dev")),
                    jax.sharding.NamedSharding(mesh, P()))
    seen = []

    def record(*values):
        seen.append([[list(np.shape(v)), np.asarray(v).tolist()] for v in values])

    def one(partitioned):
        def f(x):
            jax.debug.callback(record, x, partitioned=partitioned)
            return x * 2
        return f

    def two(x, y):
        jax.debug.callback(record, x, y, partitioned=True)
        return x

    x, y = jnp.arange(4.0), jnp.arange(3.0)
    cases = {
        "split": lambda: jax.jit(one(True), in_shardings=split, out_shardings=whole)(x),
        "split, not partitioned": lambda: jax.jit(one(False), in_shardings=split)(x),
        "replicated": lambda: jax.jit(one(True), in_shardings=whole)(x),
        "split and replicated": lambda: jax.jit(two, in_shardings=(split, whole))(x, y),
        "one device": lambda: jax.jit(one(True))(x),
        "eager": lambda: one(True)(x),
    }
    out = {}
    for name, case in cases.items():
        seen.clear()
        jax.block_until_ready(case())
        jax.effects_barrier()
        out[name] = sorted(seen)
    return out
