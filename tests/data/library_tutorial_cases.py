"""What the libraries' tutorials (python -m conformance.docs --library) ask of JAX that
jxkernel answered differently, run by JAX (reference/make_library_tutorial_reference.py records
library_tutorial_reference.json) and by jxkernel (tests/jax_compat/test_library_tutorials.py),
each in a fresh process that asks for 8 CPU devices as Flax's sharding guide does."""


def run(jax):
    out = {}
    # flax_gspmd's first cell: ask before any computation, then ask for 8 CPU devices
    out["backends_before"] = jax._src.xla_bridge.backends_are_initialized()
    if not out["backends_before"]:
        jax.config.update("jax_num_cpu_devices", 8)
    out["device_count"] = jax.device_count()
    out["backends_after"] = jax._src.xla_bridge.backends_are_initialized()
    out["reshard"] = _reshard(jax)
    return out


def _reshard(jax):
    """optimization_cookbook: `reshard(model, P(None, None))` over a model with 1-d biases."""
    jnp, sharding = jax.numpy, jax.sharding
    AxisType, NamedSharding, P, reshard = (sharding.AxisType, sharding.NamedSharding,
                                           sharding.PartitionSpec, sharding.reshard)
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    got = {}
    with jax.set_mesh(mesh):
        tree = {"kernel": jnp.ones((2, 8)), "bias": jnp.arange(8.0), "scale": jnp.float32(2)}
        split = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("y")))
        cases = {"tree_none_none": (tree, P(None, None)),
                 "split_none_none_none": (split, P(None, None, None)),
                 "split_y_none": (jnp.arange(8.0), P("y", None))}
        for name, (value, spec) in cases.items():
            result = reshard(value, spec)
            got[name] = [[str(leaf.sharding.spec), str(jax.typeof(leaf))]
                         for leaf in jax.tree_util.tree_leaves(result)]
        jitted = jax.jit(lambda t: reshard(t, P(None, None)))(tree)
        got["jit_tree_none_none"] = [[str(leaf.sharding.spec), str(jax.typeof(leaf))]
                                     for leaf in jax.tree_util.tree_leaves(jitted)]
    return got
