"""Recompilations under `jax.set_mesh` (4 CPU devices, a mesh with Explicit axes), run alike by
real JAX 0.10.2 (reference/make_recompile_mesh_reference.py writes
recompile_mesh_reference.json) and by jxkernel (tests/views/test_recompile_mesh.py, in a
subprocess of 4 CPU devices): `run(jax)` returns, per case, the lines
`jax_explain_cache_misses` logs for what changed ("* at x, now ... and before ...", or a
trace context's "* abstract_mesh_context_manager differs: ...").
JAX writes each type with its mesh's axes by type where the two types' shardings differ (a
rank change of a split array, a split one then a replicated one), not where only a size does.

    run(jax)["split_rank"]  ->  ["* at x, now f32[4@x]({Explicit: ('x',)}) and before ..."]
"""
import logging

# name -> (what a learner did, the second call's argument; the first is always a (4, 3)
# float32 array split over x on rows, unless the case gives its own first)
CASES = {
    "split_rank": ("a split matrix, then a split vector", "put(jnp.ones(4), P('x'))", None),
    "split_to_replicated_rank": ("a split matrix, then a replicated vector",
                                 "put(jnp.ones(4), P())", None),
    "split_new_width": ("a split matrix, then one of another width (same split)",
                        "put(jnp.ones((4, 5)), P('x'))", None),
    "split_then_replicated": ("a split matrix, then the same shape replicated",
                              "put(jnp.ones((4, 3)), P())", None),
    "split_on_columns": ("split on rows, then on columns", "put(jnp.ones((4, 4)), P(None, 'x'))",
                         "put(jnp.ones((4, 4)), P('x'))"),
    "unsplit_rank": ("a vector, then a scalar, unsplit under the mesh", "jnp.ones(())",
                     "jnp.ones(3)"),
    "reduced_then_split": ("reduced over x (each device a summand), then split over x",
                           "put(jnp.ones(4), P('x'))", "put(jnp.ones(4), P(reduced={'x'}))"),
}


class MissLines(logging.Handler):
    """The `  * ` lines of jax_explain_cache_misses' records (tutorial_mesh_cases too)."""
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines += [line.strip() for line in record.getMessage().splitlines()
                       if line.startswith("  * ")]


def run(jax, logger="jax._src.interpreters.partial_eval"):
    """{case: the changed type's lines} for each case of CASES, under set_mesh of a (2,) mesh
    of Explicit axis 'x' (`logger`: where the misses are logged: JAX's or jxkernel's)."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    jax.config.update("jax_explain_cache_misses", True)
    handler, log = MissLines(), logging.getLogger(logger)
    log.addHandler(handler)
    out = {}
    try:
        with jax.set_mesh(mesh):
            for name, (_, second, first) in CASES.items():
                env = {"jnp": jnp, "P": P, "put": jax.device_put}
                f = jax.jit(lambda x: x * 2)
                handler.lines = []
                f(eval(first or "put(jnp.ones((4, 3)), P('x'))", env))
                f(eval(second, env))
                out[name] = handler.lines
        # a jitted function called outside set_mesh, then inside: the context's mesh changed
        # (JAX: "Tracing context doesn't match", abstract_mesh_context_manager)
        handler.lines = []
        g = jax.jit(lambda x: x + 1)
        g(jnp.ones(4))
        with jax.set_mesh(mesh):
            g(jnp.ones(4))
        out["set_mesh_around_a_call"] = handler.lines
    finally:
        log.removeHandler(handler)
        jax.config.update("jax_explain_cache_misses", False)
    return out
