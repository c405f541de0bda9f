"""Host callbacks in a pmap or shard_map body over 4 devices: XLA calls each device's callback
with that device's block (a `pure_callback` without a vmap_method, an `io_callback`, a print in a
while loop that ends at a different step on each device). Recorded from JAX 0.10.2 on 4
simulated CPU devices by reference/make_numpy_pmap_callbacks_reference.py into
tests/data/numpy_pmap_callbacks_reference.json; tests/xla/test_numpy_backend.py runs the same
on 4 NumPy devices (the NumPy backend batched such bodies over the devices, so the pure and io
callbacks raised vmap's errors and the loop's print printed for devices whose loop had ended;
a partitioned print in a jit, which printed the whole value once; inspect_array_sharding in a
jit over a mesh, which was told one device's replicated sharding).
The devices call back from their own threads, so calls and prints are sorted."""
import contextlib
import io

import numpy as np


def run(jax) -> dict:
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    io_callback = jax.experimental.io_callback
    out = {}
    out["pure"] = jax.pmap(lambda v: jax.pure_callback(lambda y: y + 1, v, v))(
        np.arange(8.0, dtype=np.float32).reshape(4, 2)).tolist()
    seen = []

    def record(y):
        seen.append(np.asarray(y).tolist())
        return y * 2
    out["io"] = jax.pmap(lambda v: io_callback(record, v, v))(
        np.arange(4.0, dtype=np.float32)).tolist()
    out["io_calls"] = sorted(seen)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    out["shard_map"] = jax.jit(jax.shard_map(
        lambda v: jax.pure_callback(lambda y: y + np.arange(y.shape[0], dtype=y.dtype), v, v),
        mesh=mesh, in_specs=P("x"), out_specs=P("x")))(np.arange(8.0, dtype=np.float32)).tolist()

    def loop(x):
        def body(x):
            jax.debug.print("hello: {}", x)
            return x + 1
        return jax.lax.while_loop(lambda x: x < 2, body, x)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        out["while"] = jax.pmap(loop)(jnp.arange(4)).tolist()
        jax.effects_barrier()
    out["prints"] = sorted(text.getvalue().splitlines())
    # a partitioned print in a vmap, in a jit over 2 devices: each device prints its blocks of
    # the rows (columns) it is handed, a row of a split dimension whole on each
    two = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    split = jax.sharding.NamedSharding(two, P("x"))
    f = jax.jit(jax.vmap(lambda x, y: jax.debug.print("row {} column {}", x, y, partitioned=True),
                         in_axes=(0, 1)))
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        f(jax.device_put(np.arange(4).reshape(2, 2), split),
          jax.device_put(np.arange(4).reshape(2, 2) + 6, split))
        jax.effects_barrier()
    out["partitioned_vmap"] = sorted(text.getvalue().splitlines())
    # inspect_array_sharding in a jit over 2 devices: the NamedSharding XLA's partitioner
    # chose (an argument's, a reduction's, a transpose's), not one device's replicated one
    seen = []

    def inspect(label, v):
        jax.debug.inspect_array_sharding(v, callback=lambda s: seen.append(
            [label, type(s).__name__, repr(s.spec), len(s.device_set)]))

    def g(x):
        inspect("x", x)
        y = jnp.square(x)
        inspect("sum0", y.sum(0))
        inspect("T", y.T)
        return y
    jax.jit(g)(jax.device_put(np.arange(8).reshape(2, 2, 2), split))
    out["inspect"] = seen
    return out
