"""vmap of a sharding constraint, run alike by real JAX (reference/make_vmap_constraint_reference.py
records them in vmap_constraint_reference.json) and by jxkernel (tests/sharding/
test_vmap_constraint.py, in a subprocess with 8 CPU devices): without spmd_axis_name the batch
dimension is left to XLA's propagation (`P(UNCONSTRAINED, 'y')`, `{?}` in the module); with a
batch the spmd axis does not divide, the program traces and compiles (XLA pads) while an eager
constraint raises IndivisibleError.

    run(jax)["free/jaxpr_spec"]  ->  "P(UNCONSTRAINED, 'y')"

A 2 x 4 mesh of Auto axes; values are small integers in float32, so every result is exact.
"""
import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of


def _constraint_line(text: str) -> str:
    """The lowered module's sharding constraint line, from its sharding on."""
    line = next(l for l in text.splitlines() if "sdy.sharding_constraint" in l)
    return line[line.index("<@mesh"):]


def run(jax) -> dict:
    lax = jax.lax
    Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
    s_y = NamedSharding(mesh, P("y"))
    wsc = lambda a: lax.with_sharding_constraint(a * 2, s_y)      # noqa: E731
    x = np.arange(24.0, dtype=np.float32).reshape(3, 8)
    out = {}
    jaxpr = jax.make_jaxpr(jax.vmap(wsc))(x)
    out["free/jaxpr_spec"] = str(jaxpr.eqns[-1].params["sharding"].spec)
    out["free/unconstrained_dims"] = next(line.strip() for line in str(jaxpr).splitlines()
                                          if "unconstrained_dims" in line)
    f = jax.jit(jax.vmap(wsc))
    out["free/lowered"] = _constraint_line(f.lower(x).as_text())
    out["free/main"] = next(line.strip() for line in f.lower(x).as_text().splitlines()
                            if "func.func public @main" in line)     # (no sdy.sharding on x)
    y = f(x)
    out["free/spec"], out["free/value"] = str(y.sharding.spec), np.asarray(y).tolist()
    out["free/jit_inside"] = _constraint_line(jax.jit(jax.vmap(jax.jit(wsc))).lower(x).as_text())

    # a batch of 3 over the spmd axis x (2 devices)
    eqn = jax.make_jaxpr(jax.vmap(wsc, spmd_axis_name="x"))(x).eqns[-1]
    out["uneven/jaxpr_spec"] = str(eqn.params["sharding"].spec)
    g = jax.jit(jax.vmap(wsc, spmd_axis_name="x"))
    y = g(x)
    out["uneven/spec"], out["uneven/value"] = str(y.sharding.spec), np.asarray(y).tolist()
    out["uneven/eager"] = error_of(lambda: jax.vmap(wsc, spmd_axis_name="x")(x),
                                   cut=TRACEBACK_NOTE)
    s_xy = NamedSharding(mesh, P("x", "y"))
    out["uneven/jit_direct"] = str(jax.jit(
        lambda a: lax.with_sharding_constraint(a, s_xy))(x).sharding.spec)
    out["uneven/eager_direct"] = error_of(lambda: lax.with_sharding_constraint(x, s_xy),
                                          cut=TRACEBACK_NOTE)
    return out
