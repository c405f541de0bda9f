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
        # ---- 6. JAX's device assignment outside set_mesh, indexing split values, and
        # every out_sharding= of jnp and lax
        **_assignment_programs(jax, explicit, auto, value, array),
        **_indexing_programs(jax, explicit, auto, value, array),
        **_out_sharding_programs(jax, explicit, value, text, array, typed),
        **_reshape_programs(jax, explicit, array),
        # ---- 7. unused split arguments, vmap's typed batch dimension, untyped reshapes
        **_later_programs(jax, explicit, auto, value, text, array),
        # ---- 8. scatters (x.at[...], bincount, segment_sum) of values split over the mesh
        **_scatter_programs(jax, explicit, array),
        # ---- 9. where a compiled program says host data and tokens live
        **_host_data_programs(jax, explicit),
        # ---- 10. a jit given or closing over a Ref whose Array is split over a mesh
        **_split_ref_programs(jax, auto, value),
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


def _raised(f):
    """"ok", or the class and first line of what `f()` raised ("" for a bare raise)."""
    try:
        f()
        return "ok"
    except Exception as e:
        return {"error": [type(e).__name__, (_cut(str(e)).splitlines() or [""])[0]]}


def _assignment_programs(jax, explicit, auto, value, array):
    """Outside set_mesh a program runs where its used inputs, given shardings and the
    constraints inside it say, else on one device: a result typed over a mesh of several
    Explicit axes cannot come from there (JAX's device-assignment error)."""
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    split = NamedSharding(explicit, P("x", "y"))

    def placed():
        return jax.device_put(value, split)

    def named(*spec):
        return NamedSharding(explicit, P(*spec))

    def seen_by_vmap():
        seen = []
        jax.vmap(lambda r: (seen.append(str(jax.typeof(r))), r)[1])(placed())
        return seen

    def ones_like_x(x, y):
        return jnp.ones_like(x)

    def loss(r):
        return (r * 2).sum()

    def on_device_3():
        return jax.device_put(jnp.ones(3), jax.devices()[3])

    raised = {
        "jit_ones_like_unused": lambda: jax.jit(ones_like_x)(placed(), jnp.ones(3)),
        "jit_ones_like_unused_other_device": lambda: jax.jit(ones_like_x)(placed(),
                                                                          on_device_3()),
        "jit_ones_like_one_argument": lambda: jax.jit(jnp.ones_like)(placed()),
        "jit_ones_like_in_shardings": lambda: jax.jit(jnp.ones_like, in_shardings=split)(
            placed()),
        "jit_zeros_named": lambda: jax.jit(lambda: jnp.zeros((8, 2), out_sharding=named("x")))(),
        "jit_reshard_named": lambda: jax.jit(lambda a: jax.sharding.reshard(a, named("x")))(
            value),
        "grad": lambda: jax.grad(loss)(placed()),
        "vmap_grad": lambda: jax.vmap(jax.grad(loss))(placed()),
        "vmap_zeros_like": lambda: jax.vmap(jnp.zeros_like)(placed()),
        "vmap_jit_ones_like": lambda: jax.vmap(jax.jit(jnp.ones_like))(placed()),
        "broadcast_in_dim_named": lambda: lax.broadcast_in_dim(value, (3, 8, 2), (1, 2),
                                                               out_sharding=named(None, "x")),
        "arange_named": lambda: jnp.arange(8.0, out_sharding=named("x")),
        "empty_named": lambda: lax.empty((8,), jnp.float32, out_sharding=named("x")),
        "iota_named": lambda: lax.broadcasted_iota(jnp.float32, (8,), 0, out_sharding=named("x")),
        "normal_named": lambda: jax.random.normal(jax.random.key(0), (8,),
                                                  out_sharding=named("x")),
        "zeros_like_named": lambda: jnp.zeros_like(value, out_sharding=named("x")),
        "repeat_named": lambda: jnp.repeat(value, 2, axis=0, out_sharding=named("x")),
        "constraint_explicit_axes_in_jit": lambda: jax.jit(
            lambda a: lax.with_sharding_constraint(a, named("x")))(value),
    }
    out = {f"assign_{name}": (None, lambda f=f: _raised(f)) for name, f in raised.items()}
    return {
        **out,
        "assign_zeros_like_eager": (None, array(lambda: jnp.zeros_like(placed()))),
        "assign_jit_ones_like_keep_unused": (None, array(lambda: jax.jit(
            jnp.ones_like, keep_unused=True)(placed()))),
        "assign_jit_ones_like_out_shardings": (None, array(lambda: jax.jit(
            jnp.ones_like, out_shardings=split)(placed()))),
        "assign_jit_used_argument": (None, array(lambda: jax.jit(lambda x, y: x * 2)(
            placed(), jnp.ones(3)))),
        "assign_vmap_sees_types": (None, seen_by_vmap),
        "assign_vmap_sin": (None, array(lambda: jax.vmap(jnp.sin)(placed()))),
        "assign_array_named": (None, array(lambda: jnp.array(value, out_sharding=named("x")))),
        "assign_at_get_named": (None, array(lambda: placed().at[0].get(
            out_sharding=named("y")))),
        "assign_jit_python_scalar": (explicit, array(lambda: jax.jit(lambda a, i: a + i)(
            jax.sharding.reshard(value, P("x", "y")), 2))),
    }


def _indexing_programs(jax, explicit, auto, value, array):
    """x[...] on a value split over devices: a partial index takes a gather (JAX asks for
    .at[...].get(out_sharding=)); traced, a slice keeps the split where it divides."""
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def split():
        return jax.sharding.reshard(value, P("x", "y"))

    raised = {
        "int": lambda: split()[0],
        "column": lambda: split()[:, 0],
        "slice": lambda: split()[0:4],
        "array": lambda: split()[jnp.array([0, 1])],
        "scalar_array": lambda: split()[jnp.array(0)],
        "jit_int": lambda: jax.jit(lambda a: a[0])(split()),
        "jit_slice_indivisible": lambda: jax.jit(lambda a: a[0:6])(split()),
        "jit_dynamic_slice_indivisible": lambda: jax.jit(
            lambda a, i: lax.dynamic_slice_in_dim(a, i, 3))(split(), 2),
    }
    out = {f"index_{name}": (explicit, lambda f=f: _raised(f)) for name, f in raised.items()}
    return {
        **out,
        "index_whole": (explicit, array(lambda: split()[...])),
        "index_reversed": (explicit, array(lambda: split()[::-1])),
        "index_replicated": (explicit, array(lambda: jax.sharding.reshard(value, P())[0])),
        "index_jit_slice_divisible": (explicit, array(lambda: jax.jit(lambda a: a[0:4])(
            split()))),
        "index_jit_dynamic_slice": (explicit, array(lambda: jax.jit(
            lambda a, i: lax.dynamic_slice_in_dim(a, i, 4))(split(), 2))),
        "index_auto_mesh": (auto, lambda: {k: v for k, v in array(lambda: jax.device_put(
            value, NamedSharding(auto, P("x", "y")))[0])().items()
            if k in ("typeof", "value")}),    # (its layout is XLA's propagation's)
    }


def _out_sharding_programs(jax, explicit, value, text, array, typed):
    """out_sharding= of every jnp and lax function and method that takes one, under a mesh
    of Explicit axes."""
    jnp, lax = jax.numpy, jax.lax
    P = jax.sharding.PartitionSpec

    def split():
        return jax.sharding.reshard(value, P("x", "y"))

    def whole():
        return jax.sharding.reshard(value, P())

    made = {
        "repeat": lambda: jnp.repeat(whole(), 2, axis=0, out_sharding=P("x")),
        "repeat_total_length": lambda: jnp.repeat(whole(), 2, axis=0, total_repeat_length=16,
                                                  out_sharding=P("x")),
        "repeat_split_operand": lambda: jnp.repeat(split(), 2, axis=1, out_sharding=P("x")),
        "repeat_method": lambda: whole().repeat(2, axis=0, out_sharding=P("x")),
        "repeat_flat": lambda: jnp.repeat(whole(), 2, out_sharding=P("x")),
        "repeat_unsplit_axis": lambda: jnp.repeat(split(), 2, axis=1),
        "repeat_jit": lambda: jax.jit(lambda a: jnp.repeat(a, 2, axis=0, out_sharding=P("x")))(
            whole()),
        "at_get": lambda: split().at[0].get(out_sharding=P("y")),
        "at_get_replicated": lambda: whole().at[0].get(out_sharding=P("y")),
        "at_get_slice": lambda: split().at[0:4].get(out_sharding=P("x", "y")),
        "at_get_array": lambda: split().at[jnp.array([0, 1])].get(out_sharding=P(None, "y")),
        "at_set": lambda: split().at[0].set(1.0, out_sharding=P("x", None)),
        "at_set_replicated": lambda: whole().at[0].set(1.0, out_sharding=P("x", None)),
        "at_add": lambda: split().at[0].add(1.0, out_sharding=P("x", "y")),
        "at_subtract": lambda: whole().at[0].subtract(2.0, out_sharding=P("x")),
        "at_multiply": lambda: whole().at[0].multiply(2.0, out_sharding=P("x")),
        "at_divide": lambda: whole().at[0].divide(2.0, out_sharding=P("x")),
        "at_power": lambda: whole().at[0].power(2.0, out_sharding=P("x")),
        "at_min": lambda: whole().at[0].min(2.0, out_sharding=P("x")),
        "at_max": lambda: whole().at[0].max(2.0, out_sharding=P("x")),
        "at_set_jit": lambda: jax.jit(lambda a: a.at[0].set(1.0, out_sharding=P("x")))(
            whole()),
        "bincount_replicated": lambda: jnp.bincount(jnp.array([0, 1, 1, 3]), length=8,
                                                    out_sharding=P()),
        "arange": lambda: jnp.arange(8.0, out_sharding=P("x")),
        "arange_step": lambda: jnp.arange(0, 16, 2, out_sharding=P("x")),
        "arange_start": lambda: jnp.arange(2.0, 10.0, out_sharding=P("x")),
        "linalg_tensordot": lambda: jnp.linalg.tensordot(split(), jnp.ones((2, 3)), axes=1,
                                                         out_sharding=P("x", None)),
        "percentile": lambda: jnp.percentile(split(), 50.0, axis=1, out_sharding=P("x")),
        "array": lambda: jnp.array(value, out_sharding=P("x")),
        "asarray_numpy": lambda: jnp.asarray(value, out_sharding=P("x", "y")),
        "asarray_list": lambda: jnp.asarray([[1.0, 2.0]] * 8, out_sharding=P("x")),
        "empty": lambda: jnp.empty((8, 2), out_sharding=P("x")),
        "zeros_like": lambda: jnp.zeros_like(whole(), out_sharding=P("x")),
        "ones_like": lambda: jnp.ones_like(whole(), out_sharding=P("x")),
        "full_like": lambda: jnp.full_like(whole(), 2.0, out_sharding=P("x")),
        "lax_empty": lambda: lax.empty((8, 2), jnp.float32, out_sharding=P("x")),
        "lax_reduce_sum": lambda: lax.reduce(split(), 0.0, lax.add, (1,), out_sharding=P("x")),
        "ragged_dot": lambda: lax.ragged_dot(jnp.ones((8, 2)), jnp.ones((2, 2, 3)),
                                             jnp.array([4, 4], jnp.int32),
                                             out_sharding=P("x", None)),
    }
    raised = {
        "bincount_split": lambda: jnp.bincount(jnp.array([0, 1, 1, 3]), length=8,
                                               out_sharding=P("x")),
        "lax_reduce_max": lambda: lax.reduce(split(), -np.inf, lax.max, (1,),
                                             out_sharding=P("x")),
        "repeat_split_axis": lambda: jnp.repeat(split(), 2, axis=0),
        "zeros_like_and_device": lambda: jnp.zeros_like(value, device=jax.devices()[0],
                                                        out_sharding=P("x")),
        "quantile_split_axis": lambda: jnp.quantile(split(), 0.5, axis=1),
    }
    return {
        **{f"outsh_{name}": (explicit, array(f)) for name, f in made.items()},
        **{f"outsh_{name}": (explicit, lambda f=f: _raised(f)) for name, f in raised.items()},
        "outsh_rng_bit_generator": (explicit, typed(lambda: lax.rng_bit_generator(
            jnp.zeros(4, jnp.uint32), (8, 2), out_sharding=P("x"))[1])),
        "outsh_arange_jaxpr": (explicit, text(lambda: jnp.arange(8.0, out_sharding=P("x")))),
    }


def _scatter_programs(jax, explicit, array):
    """A scatter's result takes the operand's type, its updates broadcast to the type of the
    windows they go to (the index's split, a sliced dimension's); where that would need
    collectives (an index or updates split over an axis the operand's dimension is not, an
    operand split where it is indexed) JAX asks for `.at[...].add(out_sharding=)`. So
    `jnp.bincount` of split values raises, and its weights must be typed as x is."""
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    reshard = jax.sharding.reshard
    counts = np.array([0, 1, 1, 3, 2, 2, 2, 0], np.int32)
    weights = np.arange(8.0, dtype=np.float32)

    def split(v, *spec):
        return lambda: reshard(v, P(*spec))
    xs, xr, ws, wy, wr = (split(counts, "x"), split(counts), split(weights, "x"),
                          split(weights, "y"), split(weights))
    rows = split(np.ones((8, 2), np.float32), "x", None)
    made = {
        "bincount_replicated": lambda: jnp.bincount(xr(), wr(), length=5),
        "bincount_out_sharding": lambda: jnp.bincount(xs(), ws(), length=5,
                                                      out_sharding=P()),
        "at_set_column_of_split": lambda: rows().at[:, 0].set(3.0),
        "at_add_out_sharding": lambda: jnp.zeros(5).at[xs()].add(ws(), out_sharding=P()),
        "broadcast_to_retyped": lambda: jnp.broadcast_to(wr(), (8,), out_sharding=P("x")),
        "broadcast_to_numpy": lambda: jnp.broadcast_to(weights, (8,), out_sharding=P("x")),
        "broadcast_to_lead": lambda: jnp.broadcast_to(wr(), (2, 8), out_sharding=P(None, "x")),
    }
    raised = {
        "bincount": lambda: jnp.bincount(xs(), length=5),
        "bincount_unknown_length": lambda: jnp.bincount(xs()),
        "bincount_weights_split_alike": lambda: jnp.bincount(xs(), ws(), length=5),
        "bincount_weights_split_otherwise": lambda: jnp.bincount(xs(), wy(), length=5),
        "bincount_weights_replicated": lambda: jnp.bincount(xs(), wr(), length=5),
        "bincount_weights_numpy": lambda: jnp.bincount(xs(), weights, length=5),
        "bincount_x_replicated": lambda: jnp.bincount(xr(), ws(), length=5),
        "bincount_x_numpy": lambda: jnp.bincount(counts, ws(), length=5),
        "bincount_weights_shape": lambda: jnp.bincount(xs(), wr()[:4], length=5),
        "bincount_out_sharding_split": lambda: jnp.bincount(xs(), ws(), length=5,
                                                            out_sharding=P("x")),
        "bincount_jit": lambda: jax.jit(lambda a, b: jnp.bincount(a, b, length=5))(xs(), ws()),
        "bincount_jit_weights_replicated": lambda: jax.jit(
            lambda a, b: jnp.bincount(a, b, length=5))(xs(), wr()),
        "at_set_split_index": lambda: jnp.zeros((8, 2)).at[xs()].set(1.0),
        "at_set_int_of_split": lambda: rows().at[0].set(3.0),
        "at_add_slice_of_split": lambda: rows().at[:4].add(3.0),
        "at_add_index_of_split": lambda: rows().at[np.array([0, 1])].add(3.0),
        "at_add_updates_split_otherwise": lambda: wr().at[xs()].add(wy()),
        "segment_sum": lambda: jax.ops.segment_sum(ws(), xs() % 3, 3),
        "broadcast_to_split_otherwise": lambda: jnp.broadcast_to(wy(), (8,),
                                                                 out_sharding=P("x")),
        "broadcast_to_lead_split": lambda: jnp.broadcast_to(wy(), (2, 8),
                                                            out_sharding=P("x", None)),
    }
    return {**{f"scatter_{name}": (explicit, array(f)) for name, f in made.items()},
            **{f"scatter_{name}": (explicit, lambda f=f: _raised(f))
               for name, f in raised.items()}}


def _host_data_programs(jax, explicit):
    """`Compiled.input_shardings` and `output_shardings` under set_mesh for arguments with no
    sharding of their own (NumPy data, a Python scalar, a token) and for token results. JAX
    reports GSPMDSharding({replicated}) for such an argument when no argument is split (one
    split argument: XLA's choice, as a NamedSharding over its mesh), and a token passed
    through as its argument's; jxkernel says NamedSharding(P()) (hostdata_*: a recorded gap,
    tests/sharding/test_mesh_gaps.py)."""
    jnp, lax = jax.numpy, jax.lax
    P = jax.sharding.PartitionSpec
    ones = np.ones(8, np.float32)

    def shardings(f, *args):
        def go():
            compiled = jax.jit(f).lower(*(a() if callable(a) else a for a in args)).compile()
            return {"in": repr(compiled.input_shardings), "out": repr(compiled.output_shardings)}
        return lambda: _answer_or_error(go)

    def typed():                                    # (made under the mesh)
        return jnp.ones(8)

    def split():
        return jax.sharding.reshard(ones, P("x"))
    programs = {
        "numpy": shardings(lambda a: a * 2, ones),
        "python_scalar": shardings(lambda a: a * 2, 3.0),
        "typed_array": shardings(lambda a: a * 2, typed),
        "token_through": shardings(lambda t: t, lax.create_token),
        "token_made": shardings(lambda: lax.create_token()),
        "mixed_with_token": shardings(lambda x, t, n: (x * 2, t, n + 1), typed,
                                      lax.create_token, np.float32(1)),
        "split_and_scalar": shardings(lambda a, b: a * b, split, 2.0),
    }
    return {f"hostdata_{name}": (explicit, f) for name, f in programs.items()}


def _answer_or_error(f):
    try:
        return f()
    except Exception as e:          # what was raised is a fact too
        return {"error": [type(e).__name__, (_cut(str(e)).splitlines() or [""])[0]]}


def _reshape_programs(jax, explicit, array):
    """A reshape of a split value without out_sharding=: its type as JAX's rule gives it
    (merged dimensions' axes in order, a split one's spread over its pieces), or its error."""
    P = jax.sharding.PartitionSpec
    flat = np.arange(64, dtype=np.float32)
    programs = {}
    for name, shape, spec, new in [
            ("merge_both", (8, 8), P("x", "y"), (64,)), ("merge_first", (8, 8), P("x"), (64,)),
            ("merge_second", (8, 8), P(None, "x"), (64,)),
            ("split_over_both", (64,), P(("x", "y")), (8, 8)),
            ("split_indivisible", (64,), P(("x", "y")), (2, 32)),
            ("merge_three", (2, 4, 8), P("y", "x", None), (8, 8)),
            ("singleton", (8, 8), P("x", "y"), (8, 1, 8)),
            ("regroup", (16, 4), P("x", "y"), (4, 16))]:
        def go(shape=shape, spec=spec, new=new):
            x = jax.sharding.reshard(flat.reshape(shape), spec)
            try:
                return {"eager": array(lambda: x.reshape(new))(),
                        "jit": array(lambda: jax.jit(lambda a: a.reshape(new))(x))()}
            except Exception as e:
                return {"error": [type(e).__name__, _cut(str(e)).splitlines()[0]]}
        programs[f"reshape_{name}"] = (explicit, go)
    return programs


def _split_ref_programs(jax, auto, value):
    """splitref_: a jit reading and writing a Ref whose Array is split over a mesh (outside
    set_mesh) runs over that mesh: the Ref's value stays split as it was, whether the Ref is
    passed or closed over, a mesh of one device included, and through `.lower(ref).compile()`
    called with the Ref."""
    jnp = jax.numpy
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def split_ref():
        return jax.new_ref(jax.device_put(value, NamedSharding(auto, P("x", "y"))))

    def passed():
        ref = split_ref()

        @jax.jit
        def bump(r, a):
            r[...] += a
            return r[...].sum(0)
        out = bump(ref, jnp.ones((8, 2)))
        bump(ref, jnp.ones((8, 2)))
        return {"out": _describe(jax, out), "ref": _describe(jax, ref[...])}

    def closed_over():
        ref = split_ref()

        @jax.jit
        def double():
            ref[...] *= 2
        double()
        return {"ref": _describe(jax, ref[...])}

    def one_device_mesh():
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("i",))
        ref = jax.new_ref(jax.device_put(jnp.arange(2.0), NamedSharding(mesh, P("i"))))
        return {"read": _describe(jax, jax.jit(lambda: ref[...])()),
                "ref": _describe(jax, ref[...])}

    def ahead_of_time():
        # (mutable_array_test.py's test_basic_sharded_aot: lowered and compiled over the mesh)
        ref = split_ref()

        @jax.jit
        def bump(r):
            r[...] += 1.
            r[0] += 1
            r[1] += 5
        returned = bump.lower(ref).compile()(ref)
        after_aot = _describe(jax, ref[...])
        bump(ref)
        return {"returned": repr(returned), "ref_after_compiled_call": after_aot,
                "ref_after_call": _describe(jax, ref[...])}

    return {"splitref_passed": (None, passed), "splitref_closed_over": (None, closed_over),
            "splitref_one_device_mesh": (None, one_device_mesh),
            "splitref_ahead_of_time": (None, ahead_of_time)}


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


def _later_programs(jax, explicit, auto, value, text, array):
    """unused_: JAX's jit drops unused arguments before it assigns devices (unless
    keep_unused=True), so a jit reading none of its split arguments runs on the default
    device. vmapty_: vmap types the batch dimension it adds to an unbatched result by the
    mesh axes its mapped inputs' batch dimension is split over (JAX's explicit_mesh_axis).
    unsplit_: lax.reshape(..., out_sharding=NamedSharding) of an untyped operand outside
    set_mesh is untyped (JAX's call_sharding_rule skips the rule: no Explicit axis in sight)."""
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def placed(mesh=explicit):
        return jax.device_put(value, NamedSharding(mesh, P("x", "y")))

    def split():                        # under set_mesh(explicit)
        return jax.sharding.reshard(value, P("x", "y"))

    def ones_y(r):
        return jnp.ones(2, out_sharding=P("y"))

    def y_only(x, y):
        return y * 2
    named = NamedSharding(explicit, P("x"))
    programs = {
        "unused_jit_split_explicit": (None, array(lambda: jax.jit(y_only)(placed(), jnp.ones(3)))),
        "unused_jit_split_auto": (None, array(lambda: jax.jit(y_only)(placed(auto), jnp.ones(3)))),
        "unused_jit_python_scalar": (None, array(lambda: jax.jit(y_only)(placed(), 3.0))),
        # (a function of its own: JAX's caches serve a jit of the same function with
        # keep_unused=True what they compiled without it)
        "unused_jit_keep_unused": (None, array(lambda: jax.jit(
            lambda x, y: y * 2, keep_unused=True)(placed(), jnp.ones(3)))),
        "unused_jit_keep_unused_auto": (None, array(lambda: jax.jit(
            lambda x, y: y * 2, keep_unused=True)(placed(auto), jnp.ones(3)))),
        "unused_jit_ones_like_auto": (None, array(lambda: jax.jit(jnp.ones_like)(placed(auto)))),
        "unused_jit_twice": (None, array(lambda: [jax.jit(y_only)(placed(), jnp.ones(3))
                                                  for _ in range(2)][-1])),
        "vmapty_constant": (explicit, array(lambda: jax.vmap(ones_y)(split()))),
        "vmapty_constant_jaxpr": (explicit, text(jax.vmap(ones_y), split)),
        "vmapty_constant_out_axes_1": (explicit, array(lambda: jax.vmap(ones_y, out_axes=1)(
            split()))),
        "vmapty_add_unbatched": (explicit, array(lambda: jax.vmap(
            lambda r, c: r + c, in_axes=(0, None))(split(), jnp.ones(2, out_sharding=P("y"))))),
        "vmapty_unmapped_split_over_mapped_axis": (explicit, lambda: _raised(lambda: jax.vmap(
            lambda r, c: r.sum() + c.sum(), in_axes=(0, None))(split(), split()))),
        "vmapty_inconsistent_mapped_axes": (explicit, lambda: _raised(lambda: jax.vmap(
            lambda r, c: r + c)(split(), jax.sharding.reshard(value, P("y", None))))),
        "vmapty_constant_outside_mesh": (None, array(lambda: jax.vmap(lambda r: jnp.ones(2))(
            placed()))),
        "vmapty_constant_outside_mesh_jaxpr": (None, text(jax.vmap(lambda r: jnp.ones(2)),
                                                          placed)),
    }
    # typeof_: jax.typeof of a value on no mesh (NumPy's, a Python scalar, one device's)
    # under set_mesh: its type's sharding is over the empty mesh, not the mesh in context
    for name, make in [("numpy", lambda: value), ("numpy_scalar", lambda: np.float32(2)),
                       ("python_scalar", lambda: 2.0),
                       ("one_device", lambda: jax.device_put(value, jax.devices()[0]))]:
        for mesh_name, mesh in (("explicit", explicit), ("auto", auto)):
            programs[f"typeof_{name}_{mesh_name}"] = (mesh, lambda make=make: [
                repr(jax.typeof(make())), str(jax.typeof(make())),
                repr(jax.typeof(make()).sharding)])
    for name, make in [("numpy", lambda: value), ("jnp", lambda: jnp.asarray(value)),
                       ("committed", lambda: jax.device_put(value, jax.devices()[0]))]:
        programs[f"unsplit_reshape_{name}"] = (None, array(
            lambda make=make: lax.reshape(make(), (16,), out_sharding=named)))
    programs.update({
        "unsplit_reshape_same_shape": (None, array(lambda: lax.reshape(
            value, (8, 2), out_sharding=NamedSharding(explicit, P("x", None))))),
        "unsplit_reshape_dimensions": (None, array(lambda: lax.reshape(
            value, (16,), (1, 0), out_sharding=named))),
        "unsplit_jnp_reshape": (None, array(lambda: jnp.reshape(value, (16,),
                                                                out_sharding=named))),
        "unsplit_reshape_in_jit": (None, array(lambda: jax.jit(
            lambda a: lax.reshape(a, (16,), out_sharding=named))(value))),
        "unsplit_reshape_indivisible": (None, array(lambda: lax.reshape(
            np.float32(3), (1,), out_sharding=named))),
    })
    return programs
