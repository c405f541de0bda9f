"""The cases that reference/make_async_collectives_reference.py runs on JAX 0.10.2 and
tests/sharding/test_async_collectives.py on jxkernel: the asynchronous collectives'
start functions (`jax._src.lax.parallel.psum_start`, ...) staged in a shard_map body under
jit: the jaxpr (a `*_start` equation of type `AbstractFuture{...}`, its `*_done` where
`done()` is called, work staged in between), whether the lowered text has the
`stablehlo.async_start`/`async_done` pair around the collective, and the values. `run(jax)`
takes the `jax` module (real or jxkernel, with 8 CPU devices) and returns JSON data. Every
value is exact (small integer-valued floats, text)."""
import importlib


def run(jax) -> dict:
    out = {}
    parallel = importlib.import_module(jax.__name__ + "._src.lax.parallel")
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2,), ("i",), axis_types=(jax.sharding.AxisType.Explicit,),
                         devices=jax.devices()[:2])
    starts = {
        "psum": (lambda x: parallel.psum_start(x, "i"), "stablehlo.all_reduce", P("i")),
        "psum_scatter": (lambda x: parallel.psum_scatter_start(
            x, "i", scatter_dimension=0, tiled=True), "stablehlo.reduce_scatter", P("i")),
        "all_to_all": (lambda x: parallel.all_to_all_start(
            x, "i", split_axis=0, concat_axis=0, tiled=True), "stablehlo.all_to_all", P("i")),
        "ppermute": (lambda x: parallel.ppermute_start(x, "i", [(0, 1), (1, 0)]),
                     "stablehlo.collective_permute", P("i")),
        "all_gather_reduced": (lambda x: parallel.all_gather_start(
            x, "i", tiled=True, to="reduced"), "stablehlo.all_gather",
            P(None, reduced={"i"})),
    }
    with jax.set_mesh(mesh):
        x = jnp.arange(8.0, out_sharding=P("i"))
        for name, (start, op, spec) in starts.items():
            def body(x, start=start):
                future = start(x)
                y = x * 2.0                 # work staged between the start and the done
                return future.done(), y
            f = jax.shard_map(body, out_specs=(spec, P("i")))
            out[f"{name}_jaxpr"] = str(jax.make_jaxpr(f)(x))
            text = jax.jit(f).lower(x).as_text()
            out[f"{name}_lowered"] = ["stablehlo.async_start" in text, op in text,
                                      "stablehlo.async_done" in text,
                                      text.index("stablehlo.async_start") < text.index(op)
                                      < text.index("stablehlo.async_done")
                                      if "stablehlo.async_start" in text else None]
            out[f"{name}_values"] = [v.tolist() for v in jax.jit(f)(x)]
    return out
