"""Sharding-in-types gaps against JAX 0.10.2: eager ops under `jax.set_mesh`, jits with Refs or
compiler_options under it, the jaxpr text of sharding_constraint, reshard, mesh_cast and
shard_map under it, and key-reuse checking of sharded keys. Run alike by real JAX
(reference/make_mesh_gaps_reference.py records mesh_gaps_reference.json, 8 CPU devices) and by
jxkernel (tests/sharding/test_mesh_gaps.py, in a subprocess with as many): `run(jax)` returns
plain JSON data, per program its result's type (`jax.typeof`), `.sharding` repr, shard shape
and value, a jaxpr's text, or what it raised.

    run(jax)["eager_add_explicit"]  ->  {"typeof": "float32[8@x,2]", "sharding": ...}

Values are small integers in float32 (exact on both sides); random values are not recorded
(their bits are random_reference.json's concern), only their types and shardings.
"""
import importlib

import numpy as np
from recorded_errors import SOURCE_NOTE, TRACEBACK_NOTE


def _cut(text):
    return text.split(SOURCE_NOTE)[0].split(TRACEBACK_NOTE)[0]


def _describe(jax, x, value=True):
    out = {"typeof": str(jax.typeof(x)), "sharding": repr(x.sharding),
           "shard_shape": list(x.sharding.shard_shape(x.shape))}
    if value:
        out["value"] = np.asarray(x).tolist()
    return out


def _programs(jax):
    """name -> (mesh, a function of no arguments, what of its answer to record)."""
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P, AxisType = (jax.sharding.NamedSharding, jax.sharding.PartitionSpec,
                                  jax.sharding.AxisType)
    reshard = jax.sharding.reshard
    auto = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    explicit = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(16, dtype=np.float32).reshape(8, 2)
    shard_map = jax.shard_map

    def array(x):
        return lambda: _describe(jax, x())

    def typed(x):                      # random values: type and placement, not the bits
        return lambda: _describe(jax, x(), value=False)

    def text(f, *args):              # (an argument given as a function: made under the mesh)
        return lambda: str(jax.make_jaxpr(f)(*[a() if callable(a) else a for a in args]))

    def said(f):
        try:
            f()
            return "ok"
        except Exception as e:
            return {"error": [type(e).__name__, _cut(str(e)).splitlines()[0]]}

    def with_refs(mesh_):
        ref = jax.new_ref(jnp.zeros(8))

        @jax.jit
        def bump(r, a):
            r[...] += a
            return a * 2
        out = bump(ref, jnp.arange(8.0))
        return {"out": _describe(jax, out), "ref": _describe(jax, ref[...])}

    kr_mod = importlib.import_module(jax.__name__ + ".random")

    def reuse(spec, jitted=False, put=None, shardings=None):
        """A key used twice (a split key array by vmap): resharded to `spec`, or put on
        `put`'s sharding, or given to a jit with in_shardings=`shardings`."""
        def go():
            with jax.debug_key_reuse(True):
                k = kr_mod.key(0) if spec == P() else kr_mod.split(kr_mod.key(0), 8)
                k = reshard(k, spec) if spec is not None else k
                k = jax.device_put(k, put) if put is not None else k
                bits = kr_mod.bits if k.ndim == 0 else jax.vmap(kr_mod.bits)
                f = jax.jit(bits, in_shardings=shardings) if jitted else bits
                f(k)
                f(k)
        return lambda: said(go)

    def reuse_under_mesh():
        def go():
            with jax.debug_key_reuse(True):
                k = kr_mod.key(0)
                jax.jit(lambda k: kr_mod.normal(k, (4,)))(k)
                jax.jit(lambda k: kr_mod.normal(k, (4,)))(k)
        return lambda: said(go)

    def reuse_high():
        def go():
            hijax = importlib.import_module(jax.__name__ + "._src.hijax")
            with jax.debug_key_reuse(True):
                k = kr_mod.key(0)
                box = hijax.Box(jnp.zeros(()))

                @jax.jit
                def f(b, k):
                    b.set(b.get() + kr_mod.normal(k))
                f(box, k)
                f(box, k)
        return lambda: said(go)

    return {
        # ---- 1. eager ops under set_mesh
        "eager_add_numpy_auto": (auto, array(lambda: jnp.asarray(value) + 1)),
        "eager_add_numpy_explicit": (explicit, array(lambda: jnp.asarray(value) + 1)),
        "eager_sin_auto": (auto, array(lambda: jnp.sin(jnp.zeros((8, 2))))),
        "eager_arange_explicit": (explicit, array(lambda: jnp.arange(8.0))),
        "eager_zeros_explicit": (explicit, array(lambda: jnp.zeros((8, 2)))),
        "eager_asarray_auto": (auto, array(lambda: jnp.asarray(value))),
        "eager_zeros_out_sharding_explicit": (explicit, array(
            lambda: jnp.zeros((8, 2), out_sharding=P("x")))),
        "eager_zeros_out_sharding_explicit_2d": (explicit, array(
            lambda: jnp.zeros((8, 2), out_sharding=P("x", "y")))),
        "eager_ones_out_sharding_named": (explicit, array(
            lambda: jnp.ones((8, 2), out_sharding=NamedSharding(explicit, P(None, "y"))))),
        "eager_zeros_out_sharding_auto": (auto, array(
            lambda: jnp.zeros((8, 2), out_sharding=P("x")))),
        "eager_full_out_sharding_explicit": (explicit, array(
            lambda: jnp.full((8, 2), 3.0, out_sharding=P("x")))),
        "eager_add_sharded_explicit": (explicit, array(
            lambda: reshard(value, P("x")) + 1)),
        "eager_add_sharded_auto": (auto, array(
            lambda: jax.device_put(value, NamedSharding(auto, P("x"))) + 1)),
        "eager_sum_sharded_explicit": (explicit, array(
            lambda: jnp.sum(reshard(value, P("x")), axis=0))),
        "eager_matmul_sharded_explicit": (explicit, array(
            lambda: reshard(value, P("x")) @ jnp.ones((2, 4)))),
        "eager_reshard_explicit": (explicit, array(lambda: reshard(value, P("x", "y")))),
        "eager_device_put_spec_explicit": (explicit, array(
            lambda: jax.device_put(value, P("x")))),
        "random_normal_explicit": (explicit, typed(
            lambda: jax.random.normal(jax.random.key(0), (8, 2)))),
        "random_normal_auto": (auto, typed(
            lambda: jax.random.normal(jax.random.key(0), (8, 2)))),
        "random_key_explicit": (explicit, lambda: {"typeof": str(jax.typeof(
            jax.random.key(0))), "sharding": repr(jax.random.key(0).sharding)}),
        "random_split_explicit": (explicit, lambda: {"typeof": str(jax.typeof(
            jax.random.split(jax.random.key(0), 8))), "sharding": repr(
            jax.random.split(jax.random.key(0), 8).sharding)}),
        "random_normal_out_sharding_explicit": (explicit, typed(
            lambda: jax.random.normal(jax.random.key(0), (8, 2), out_sharding=P("x")))),
        "random_uniform_out_sharding_explicit": (explicit, typed(
            lambda: jax.random.uniform(jax.random.key(0), (8, 2), out_sharding=P("x", "y")))),
        # ---- 2. a jit with Refs, or with compiler_options, under set_mesh
        "jit_refs_auto": (auto, lambda: with_refs(auto)),
        "jit_refs_explicit": (explicit, lambda: with_refs(explicit)),
        "jit_compiler_options_auto": (auto, array(lambda: jax.jit(
            lambda a: a * 2, compiler_options={"xla_embed_ir_in_executable": True})(value))),
        "jit_compiler_options_explicit_sharded": (explicit, array(lambda: jax.jit(
            lambda a: a * 2, compiler_options={"xla_embed_ir_in_executable": True})(
            reshard(value, P("x"))))),
        # ---- 3. jaxpr texts under set_mesh
        "jaxpr_constraint_spec_auto": (auto, text(
            lambda a: lax.with_sharding_constraint(a * 2, P("x")), value)),
        "jaxpr_constraint_named_auto": (auto, text(
            lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(auto, P("x", "y"))),
            value)),
        "jaxpr_constraint_unconstrained_auto": (auto, text(
            lambda a: lax.with_sharding_constraint(a, P("x", P.UNCONSTRAINED)), value)),
        "jaxpr_constraint_no_mesh": (None, text(
            lambda a: lax.with_sharding_constraint(a, NamedSharding(auto, P("x"))), value)),
        "jaxpr_reshard_explicit": (explicit, text(lambda a: reshard(a, P("x")), value)),
        "jaxpr_reshard_named_explicit": (explicit, text(lambda a: reshard(
            a * 2, NamedSharding(explicit, P(None, "y"))), value)),
        "jaxpr_jit_reshard_explicit": (explicit, text(jax.jit(lambda a: reshard(a, P())),
                                                      lambda: reshard(value, P("x")))),
        "jaxpr_constraint_in_jit_auto": (auto, text(jax.jit(
            lambda a: lax.with_sharding_constraint(a, P("x"))), value)),
        "jaxpr_jit_explicit_sharded": (explicit, text(
            jax.jit(lambda a: a * 2), lambda: reshard(value, P("x")))),
        "jaxpr_shard_map_auto": (auto, text(lambda a: shard_map(
            lambda b: b * 2, in_specs=P("x"), out_specs=P("x"))(a), value)),
        "jaxpr_shard_map_explicit": (explicit, text(lambda a: shard_map(
            lambda b: b * 2, in_specs=P("x"), out_specs=P("x"))(a),
            lambda: reshard(value, P("x")))),
        "jaxpr_shard_map_explicit_axis_names": (explicit, text(lambda a: shard_map(
            lambda b: b * 2, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(a),
            lambda: reshard(value, P("x")))),
        # ---- 4. key reuse on the sharded and hijax jit paths
        "key_reuse_eager_replicated": (explicit, reuse(P())),
        "key_reuse_jit_replicated": (explicit, reuse(P(), jitted=True)),
        "key_reuse_eager_resharded": (explicit, reuse(P("x"))),
        "key_reuse_jit_resharded": (explicit, reuse(P("x"), jitted=True)),
        "key_reuse_jit_device_put": (None, reuse(None, True, put=NamedSharding(auto, P("x")))),
        "key_reuse_jit_in_shardings": (None, reuse(None, True,
                                                   shardings=NamedSharding(auto, P("x")))),
        "key_reuse_eager_device_put": (None, reuse(None, put=NamedSharding(auto, P("x")))),
        "key_reuse_jit_under_set_mesh": (auto, reuse_under_mesh()),
        "key_reuse_jit_hijax": (None, reuse_high()),
        # ---- 5. out_sharding= of lax's shape functions, and results typed as their operand
        # (transposes, full_like, grad's seed)
        **_typed_programs(jax, explicit, auto, value, text, array, said),
    }


def _typed_programs(jax, explicit, auto, value, text, array, said):
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    reshard = jax.sharding.reshard

    def split():                        # (8, 2) split over both axes of `explicit`
        return reshard(value, P("x", "y"))

    def three(a):
        return lax.broadcast_in_dim(a, (3, 8, 2), (1, 2), out_sharding=P(None, "x", "y"))

    def cases(name, f, jaxpr=True):
        """The jaxpr of `f` on the split value, and what its jit and eager calls give."""
        out = {f"typed_{name}_jit": (explicit, array(lambda: jax.jit(f)(split()))),
               f"typed_{name}_eager": (explicit, array(lambda: f(split())))}
        if jaxpr:
            out[f"typed_{name}_jaxpr"] = (explicit, text(f, split))
        return out

    return {
        **cases("reshape", lambda a: lax.reshape(a, (16,), out_sharding=P("x"))),
        **cases("jnp_reshape", lambda a: jnp.reshape(a, (16,), out_sharding=P("x"))),
        **cases("reshape_method", lambda a: a.reshape(16, out_sharding=P("x")), jaxpr=False),
        **cases("jnp_reshape_f", lambda a: jnp.reshape(a, (2, 8), order="F",
                                                       out_sharding=P(None, "x"))),
        **cases("broadcast_in_dim", three),
        **cases("broadcast", lambda a: lax.broadcast(a, (3,), out_sharding=P(None, "x", None))),
        **cases("broadcast_in_dim_same_shape", lambda a: lax.broadcast_in_dim(
            a, (8, 2), (0, 1), out_sharding=P("y", None))),
        **cases("iota", lambda a: a + lax.broadcasted_iota(jnp.float32, (8, 2), 0,
                                                           out_sharding=P("x", "y"))),
        **cases("grad_sum", jax.grad(lambda a: (a * 2).sum())),
        **cases("grad_mean", jax.grad(lambda a: jnp.mean(jnp.sin(a)))),
        **cases("grad_reshape", jax.grad(lambda a: lax.reshape(a, (16,), out_sharding=P("x"))
                                         .sum())),
        **cases("grad_broadcast", jax.grad(lambda a: three(a).sum())),
        **cases("vmap_broadcast", jax.vmap(lambda r: lax.broadcast_in_dim(
            r, (3, 2), (1,), out_sharding=P(None, "y")))),
        **cases("broadcast_to", lambda a: jnp.broadcast_to(a, (3, 8, 2),
                                                           out_sharding=P(None, "x", "y"))),
        **cases("ravel", lambda a: jnp.ravel(a, out_sharding=P("x"))),
        **cases("flatten_method", lambda a: a.flatten(out_sharding=P("x")), jaxpr=False),
        **cases("tensordot", lambda a: jnp.tensordot(a, jnp.ones((2, 3)), axes=1,
                                                     out_sharding=P("x", None))),
        **cases("zeros_like", jnp.zeros_like),
        **cases("full_like", lambda a: jnp.full_like(a, 3)),
        **cases("lax_full_like", lambda a: lax.full_like(a, 2)),
        **cases("constraint_spec", lambda a: lax.with_sharding_constraint(a * 2, P("x", "y"))),
        "typed_lax_full_scalar_jaxpr": (explicit, text(
            lambda a: lax.full((), 1.0, sharding=NamedSharding(explicit, P())), value)),
        "typed_broadcast_scalar_jaxpr": (explicit, text(lambda a: lax.broadcast(1.0, ()), value)),
        "typed_broadcast_in_dim_indivisible": (explicit, lambda: said(lambda: lax.broadcast_in_dim(
            split(), (3, 8, 2), (1, 2), out_sharding=P("x", None, "y")))),
        "typed_constraint_other_spec": (explicit, lambda: said(lambda: jax.jit(
            lambda a: lax.with_sharding_constraint(a * 2, P("y", None)))(split()))),
        "typed_reshape_spec_without_mesh": (None, lambda: said(lambda: lax.reshape(
            value, (16,), out_sharding=P("x")))),
        "typed_broadcast_in_dim_auto_axes": (auto, lambda: said(lambda: lax.broadcast_in_dim(
            value, (3, 8, 2), (1, 2), out_sharding=P(None, "x")))),
        "typed_reshard_named_outside_mesh": (None, array(lambda: reshard(
            value, NamedSharding(explicit, P("x", "y"))))),
        "typed_grad_outside_mesh": (None, lambda: said(lambda: jax.grad(lambda a: (a * 2).sum())(
            jax.device_put(value, NamedSharding(explicit, P("x", "y")))))),
        "typed_reshape_named_outside_mesh": (None, array(lambda: lax.reshape(
            jax.device_put(value, NamedSharding(explicit, P("x", "y"))), (16,),
            out_sharding=NamedSharding(explicit, P("x"))))),
    }


def run(jax):
    import contextlib
    out = {"device_count": len(jax.devices())}
    for name, (mesh, fn) in _programs(jax).items():
        try:
            with jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext():
                out[name] = fn()
        except Exception as e:          # what was raised is a fact too
            out[name] = {"error": [type(e).__name__, _cut(str(e))]}
    return out
