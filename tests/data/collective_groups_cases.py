"""axis_index_groups in shard_map bodies and under vmap, run alike by real JAX
(reference/make_collective_groups_reference.py records them in collective_groups_reference.json)
and by jxkernel (tests/sharding/test_collective_groups.py, in a subprocess with 8 CPU devices):
per collective and check_vma, the result or the error.

    run(jax)["psum/check_vma"]  ->  ["NotImplementedError", ""]

Values are small integers in float32, so every sum is exact.
"""
import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

GROUPS = [[0, 1, 2, 3], [4, 5, 6, 7]]


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
    x = jnp.arange(8.0)
    bodies = {
        "psum": lambda a: lax.psum(a, "x", axis_index_groups=GROUPS),
        "pmean": lambda a: lax.pmean(a, "x", axis_index_groups=GROUPS),
        "pmax": lambda a: lax.pmax(a, "x", axis_index_groups=GROUPS),
        "psum_scatter": lambda a: lax.psum_scatter(jnp.tile(a, 4), "x", tiled=True,
                                                   axis_index_groups=GROUPS),
    }
    out = {}
    for name, body in bodies.items():
        for check in (True, False):
            f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                                      check_vma=check))
            key = f"{name}/{'check_vma' if check else 'unchecked'}"
            out[key] = error_of(lambda: f(x), cut=TRACEBACK_NOTE) or np.asarray(f(x)).tolist()
    out["vmap/psum"] = error_of(
        lambda: jax.vmap(bodies["psum"], axis_name="x")(x), cut=TRACEBACK_NOTE)
    return out
