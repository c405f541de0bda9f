"""`aval.str_short()` with and without short_dtypes and mesh_axis_types, run alike by real JAX
(reference/make_str_short_reference.py records them in str_short_reference.json) and by jxkernel
(tests/core/test_str_short.py): JAX's long dtype names by default, no weak-type mark.

    run(jax)["float32[2]"]  ->  ["float32[2]", "f32[2]", "float32[2]({})"]
"""
import numpy as np


def run(jax) -> dict:
    jnp = jax.numpy
    values = [jnp.ones(2), jnp.ones((2, 3), jnp.int8), jnp.ones((), jnp.bfloat16),
              jnp.ones(2, bool), jnp.float32(1), 1.0, jax.random.key(0),
              jnp.ones(2, jnp.complex64), jnp.ones(2, jnp.uint32), jnp.ones(3, jnp.float16),
              jnp.zeros(2, jax.dtypes.float0), jnp.ones(2, jnp.float8_e4m3fn)]
    avals = [jax.typeof(v) for v in values] + [jax.typeof(jax.new_ref(jnp.ones(2)))]
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    with jax.sharding.use_mesh(mesh) if hasattr(jax.sharding, "use_mesh") else jax.set_mesh(mesh):
        avals.append(jax.typeof(jax.device_put(np.ones((4, 2), np.float32),
                                               jax.sharding.PartitionSpec("x"))))
    out = {}
    for aval in avals:
        out[str(aval)] = [aval.str_short(), aval.str_short(short_dtypes=True),
                          aval.str_short(True), aval.str_short(mesh_axis_types=True),
                          aval.str_short(short_dtypes=True, mesh_axis_types=True)]
    return out
