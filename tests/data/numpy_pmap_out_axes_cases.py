"""A result replicated over the devices that each device computed differently (unchecked, as
JAX leaves it): pmap's `out_axes=None` and shard_map's `out_specs=P()` with check_vma=False.
XLA keeps each device's own value in its shard (the Array's value is device 0's). Recorded
from JAX 0.10.2 on 4 simulated CPU devices by reference/make_numpy_pmap_callbacks_reference.py
into tests/data/numpy_pmap_out_axes_reference.json; tests/xla/test_numpy_backend.py runs the
same on 4 NumPy devices (whose replicated results kept device 0's block on every device)."""
import numpy as np


def _shards(a) -> list:
    return [np.asarray(s.data).tolist() for s in a.addressable_shards]


def run(jax) -> dict:
    out = {}
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    y = np.arange(8.0, dtype=np.float32).reshape(4, 2) * 10
    first, second = jax.pmap(lambda a, b: (a, b), in_axes=(0, None), out_axes=(None, 0))(x, y)
    out["varying"] = [np.asarray(first).tolist(), _shards(first)]
    out["broadcast"] = [list(second.shape), _shards(second)[1]]
    same = jax.pmap(lambda a: a * 2, out_axes=None)(np.ones((4, 2), np.float32))
    out["same"] = [np.asarray(same).tolist(), _shards(same)]
    nested = jax.pmap(lambda a: {"sum": a.sum(), "a": a}, out_axes={"sum": None, "a": 0})(x)
    out["nested"] = [np.asarray(nested["sum"]).tolist(), _shards(nested["sum"]),
                     np.asarray(nested["a"]).tolist()]
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    f = jax.jit(jax.shard_map(lambda b: b * 3, mesh=mesh, in_specs=jax.P("i"),
                              out_specs=jax.P(), check_vma=False))
    z = f(x)
    out["shard_map"] = [np.asarray(z).tolist(), _shards(z)]
    return out
