"""vmap(spmd_axis_name=...) cases run alike by real JAX (reference/make_vmap_spmd_reference.py
records them in vmap_spmd_reference.json) and by jxkernel (tests/transforms/test_vmap_spmd.py,
in a subprocess with 8 CPU devices): the batch dimension split over the named mesh axes where a
sharding constraint, a jit with shardings or a shard_map inside says how to split the rest.

    run(jax)["wsc/spec"]  ->  "P('x', 'y')"

A 2 x 4 mesh of Auto axes (`Mesh`: JAX 0.10.2's make_mesh makes Explicit ones). Values are small
integers in float32, so every result is exact.
"""
import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of


def _constraint_line(text: str) -> str:
    """The lowered module's sharding constraint line, from its sharding on."""
    line = next(l for l in text.splitlines() if "sdy.sharding_constraint" in l)
    return line[line.index("<@mesh"):]


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
    x = jnp.arange(32.0).reshape(8, 4)
    out = {}
    s_y = NamedSharding(mesh, P("y"))
    wsc = lambda a: lax.with_sharding_constraint(a * 2, s_y)      # noqa: E731
    for name, spmd in (("wsc", "x"), ("wsc_tuple", ("x",))):
        f = jax.jit(jax.vmap(wsc, spmd_axis_name=spmd))
        y = f(x)
        out[f"{name}/spec"] = str(y.sharding.spec)
        out[f"{name}/value"] = np.asarray(y).tolist()
        out[f"{name}/lowered"] = _constraint_line(f.lower(x).as_text())
    eqn = jax.make_jaxpr(jax.vmap(wsc, spmd_axis_name="x"))(x).eqns[-1]
    out["wsc/jaxpr_spec"] = str(eqn.params["sharding"].spec)
    out["wsc/named_in_spec"] = error_of(
        lambda: jax.vmap(wsc, spmd_axis_name="y")(x), cut=TRACEBACK_NOTE)
    j = jax.jit(lambda a: a * 2, in_shardings=s_y, out_shardings=s_y)
    out["jit/spec"] = str(jax.jit(jax.vmap(j, spmd_axis_name="x"))(x).sharding.spec)
    sm = jax.shard_map(lambda a: a * lax.axis_index("y"), mesh=mesh, in_specs=P("y"),
                       out_specs=P("y"))
    eqn = jax.make_jaxpr(jax.vmap(sm, spmd_axis_name="x"))(x).eqns[0]
    out["shard_map/in_specs"] = [str(s) for s in eqn.params["in_specs"]]
    out["shard_map/out_specs"] = [str(s) for s in eqn.params["out_specs"]]
    body = eqn.params["jaxpr"]            # (JAX's is a Jaxpr, jxkernel's a ClosedJaxpr)
    out["shard_map/body_in"] = [str(v.aval) for v in getattr(body, "jaxpr", body).invars]
    y = jax.jit(jax.vmap(sm, spmd_axis_name="x"))(x)
    out["shard_map/spec"] = str(y.sharding.spec)
    out["shard_map/value"] = np.asarray(y).tolist()
    named = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    out["shard_map/named_in_spec"] = error_of(
        lambda: jax.vmap(named, spmd_axis_name="x")(x), cut=TRACEBACK_NOTE)
    explicit = jax.make_mesh((2, 4), ("x", "y"),
                             axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    with jax.set_mesh(explicit):
        a = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P("x"))
        for spmd in ("x", "y"):
            out[f"explicit/{spmd}"] = error_of(
                lambda: jax.vmap(lambda v: v * 2, spmd_axis_name=spmd)(a),
                cut=TRACEBACK_NOTE) or str(jax.typeof(jax.vmap(
                    lambda v: v * 2, spmd_axis_name=spmd)(a)))
    return out
