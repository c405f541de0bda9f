"""jit equations as JAX 0.10.2 makes them, compared with jxkernel's: their params (keys and a
repr of each value: in_shardings, out_shardings, in_layouts, out_layouts, donated_invars,
ctx_mesh, name, keep_unused, inline, compiler_options_kvs) and the printed jaxpr, for jits with
and without given shardings, donation, keep_unused, under set_mesh, and after grad, vmap, jvp,
linearize, transposition and checkpoint rewrote them (reference/make_jit_eqn_params_reference.py
records JAX's in tests/data/jit_eqn_params_reference.json; tests/core/test_jit_eqn_params.py
compares). One device and a one-device mesh: any device count records the same.

`cases(jax)`: name -> (f, args, the mesh to trace it under set_mesh of (an AbstractMesh:
use_abstract_mesh), or None); `run(jax)`: as eqn_params_cases.run."""
import contextlib
import importlib
import warnings

import numpy as np

from eqn_params_cases import _ADDRESS, _eqns


def run(jax) -> dict:
    result = {}
    for name, (f, args, mesh) in cases(jax).items():
        try:
            with warnings.catch_warnings(), under(jax, mesh):
                warnings.simplefilter("ignore", DeprecationWarning)     # (device=)
                closed = jax.make_jaxpr(f)(*args)
        except Exception as e:  # noqa: BLE001 - the difference is what is recorded
            result[name] = {"error": type(e).__name__}
            continue
        result[name] = {"eqns": _eqns(closed.jaxpr, jax, []),
                        "text": _ADDRESS.sub("", str(closed)),
                        # (a Mesh is callable, so _eqns shows "<callable>": its repr here)
                        "ctx_meshes": [repr(e.params["ctx_mesh"]) for e in closed.jaxpr.eqns
                                       if e.primitive.name == "jit"]}
    return result


def under(jax, mesh):
    """The context a case is traced in: set_mesh of `mesh`, use_abstract_mesh of an
    AbstractMesh, nothing for None."""
    sharding = importlib.import_module(jax.__name__ + ".sharding")
    return contextlib.nullcontext() if mesh is None else sharding.use_abstract_mesh(mesh) \
        if isinstance(mesh, sharding.AbstractMesh) else jax.set_mesh(mesh)


def cases(jax):
    jnp, lax = jax.numpy, jax.lax
    sharding = importlib.import_module(jax.__name__ + ".sharding")
    NamedSharding, P = sharding.NamedSharding, sharding.PartitionSpec
    SingleDeviceSharding = sharding.SingleDeviceSharding
    x3 = np.array([0.5, 1.5, 2.5], np.float32)
    d0 = jax.devices()[0]
    one = SingleDeviceSharding(d0)
    mesh = jax.make_mesh((1,), ("x",))
    c = {}

    def reg(name, f, *args, under=None):
        c[name] = (f, args, under)

    def g(x):
        return jnp.sin(x) * 2

    def g2(x, y):
        return jnp.sin(x) * y, x + 1

    plain, pinned_in = jax.jit(g), jax.jit(g, in_shardings=one)
    pinned_out, pinned_dev = jax.jit(g, out_shardings=one), jax.jit(g, device=d0)
    reg("plain", lambda x: plain(x) + 1, x3)
    reg("two_results", lambda x: jax.jit(g2)(x, x), x3)
    reg("unused_argument", lambda x: jax.jit(lambda a, b: a * 2)(x, x), x3)
    reg("keep_unused_donated", lambda x: jax.jit(lambda a, b: a * 2, keep_unused=True,
                                                 donate_argnums=0)(x, x), x3)
    reg("donated", lambda x: jax.jit(g2, donate_argnums=(1,))(x, x), x3)
    reg("in_shardings", lambda x: pinned_in(x) + 1, x3)
    reg("out_shardings", lambda x: pinned_out(x) + 1, x3)
    reg("device", lambda x: pinned_dev(x) + 1, x3)
    reg("named_in_shardings", lambda x: jax.jit(g, in_shardings=NamedSharding(mesh, P("x")))(x),
        x3)
    reg("compiler_options", lambda x: jax.jit(g, compiler_options={
        "xla_cpu_enable_fast_math": True})(x), x3)

    reg("set_mesh", lambda x: plain(x) + 1, x3, under=mesh)
    reg("set_mesh_grad", jax.grad(lambda x: plain(x).sum()), x3, under=mesh)
    reg("set_mesh_vmap", jax.vmap(plain), np.stack([x3, x3]), under=mesh)
    def mesh_block(f, x):           # (a `with mesh:` block: no ctx_mesh, as JAX's)
        with mesh:
            return f(x)
    explicit = sharding.AbstractMesh((1,), ("x",), axis_types=(sharding.AxisType.Explicit,))
    auto = sharding.AbstractMesh((1,), ("x",), axis_types=(sharding.AxisType.Auto,))
    reg("abstract_mesh_explicit", lambda x: plain(x) + 1, x3, under=explicit)
    reg("abstract_mesh_auto", lambda x: plain(x) + 1, x3, under=auto)
    reg("legacy_mesh_block", lambda x: mesh_block(plain, x), x3)
    reg("grad", jax.grad(lambda x: plain(x).sum()), x3)
    reg("grad_two_args", jax.grad(lambda x, y: jax.jit(g2)(x, y)[0].sum(), argnums=1), x3, x3)
    reg("grad_in_shardings", jax.grad(lambda x: pinned_in(x).sum()), x3)
    reg("grad_out_shardings", jax.grad(lambda x: pinned_out(x).sum()), x3)
    reg("grad_device", jax.grad(lambda x: pinned_dev(x).sum()), x3)
    reg("vmap", jax.vmap(plain), np.stack([x3, x3]))
    reg("vmap_in_shardings", jax.vmap(lambda x: pinned_in(x)), np.stack([x3, x3]))
    reg("jvp", lambda x: jax.jvp(plain, (x,), (x,)), x3)
    reg("jvp_out_shardings", lambda x: jax.jvp(pinned_out, (x,), (x,)), x3)
    reg("linearize", lambda x: jax.linearize(plain, x)[1](x), x3)
    reg("vjp_in_shardings", lambda x: jax.vjp(pinned_in, x)[1](x), x3)
    reg("checkpoint", jax.grad(lambda x: jax.checkpoint(plain)(x).sum()), x3)
    reg("scan_body", lambda x: lax.scan(lambda cr, a: (cr + plain(a), None), 0.0 * x,
                                        jnp.stack([x, x]))[0], x3)
    reg("nested", jax.jit(lambda x: plain(x) * 3), x3)
    reg("hessian", jax.hessian(lambda x: plain(x).sum()), x3)
    reg("pmap", jax.pmap(lambda x: x * 2), x3[None])
    reg("shard_map_body", jax.shard_map(lambda x: plain(x), mesh=mesh, in_specs=P(),
                                        out_specs=P()), x3)
    reg("cond_branch", lambda x: lax.cond(True, plain, jnp.cos, x), x3)
    reg("checkpoint_inside", jax.grad(lambda x: jax.checkpoint(
        lambda y: plain(y) * 2)(x).sum()), x3)

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)
    cv.defvjp(lambda x: (jnp.sin(x), x), lambda r, g: (g * r,))
    reg("custom_vjp_grad", jax.grad(lambda x: jax.jit(cv)(x).sum()), x3)
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")

    def checked(x):
        checkify.check(jnp.all(x > 0), "not positive")
        return x * 2
    reg("checkify", checkify.checkify(lambda x: jax.jit(checked)(x) + plain(x)), x3)
    return c
