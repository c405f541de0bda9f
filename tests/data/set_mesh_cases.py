"""Programs run under `jax.set_mesh` as Flax's nnx/spmd_test.py runs them (Flax shards variables
at creation this way), alike by real JAX (reference/make_set_mesh_reference.py records them in
set_mesh_reference.json, with 8 CPU devices) and by jxkernel (tests/sharding/
test_set_mesh_programs.py, in a subprocess with as many): `run(jax)` returns plain JSON data,
per program its result's type (`jax.typeof`), `.sharding` repr, shard shape and value, or what
it raised.

    run(jax)["jit_constraint_over_abstract_mesh"]  ->  {"sharding": "NamedSharding(...", ...}

Each program is one of the differences spmd_test.py found: a jit whose constraint is over the
AbstractMesh (compiled over set_mesh's mesh), a jit under set_mesh (run over the mesh), values
typed over a Mesh and over its AbstractMesh meeting, zeros_like of a sharded array (optax's
optimizer state), a Format given to with_sharding_constraint, conv_general_dilated's sharding
rule and out_sharding=, gather's sharding rule and `.at[].get(out_sharding=)`. Values are small
integers in float32 (a convolution of them too): every result is exact.
"""
import importlib

import numpy as np
from recorded_errors import SOURCE_NOTE, TRACEBACK_NOTE


def _cut(text):
    return text.split(SOURCE_NOTE)[0].split(TRACEBACK_NOTE)[0]


def _describe(jax, x):
    return {"typeof": str(jax.typeof(x)), "sharding": repr(x.sharding),
            "shard_shape": list(x.sharding.shard_shape(x.shape)),
            "value": np.asarray(x).tolist()}


def _programs(jax):
    """name -> a function of no arguments returning an Array, run under its mesh."""
    jnp, lax = jax.numpy, jax.lax
    NamedSharding, P, AxisType = (jax.sharding.NamedSharding, jax.sharding.PartitionSpec,
                                  jax.sharding.AxisType)
    reshard = jax.sharding.reshard
    layout = importlib.import_module(jax.__name__ + ".experimental.layout")  # (this jax's)
    Format, Layout = layout.Format, layout.Layout
    auto = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    explicit = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    other = jax.make_mesh((2, 4), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
    twice = jax.jit(lambda a: a * 2)
    value = np.arange(16, dtype=np.float32).reshape(8, 2)
    dn = ("NWC", "WIO", "NWC")
    signal = np.arange(64, dtype=np.float32).reshape(4, 4, 4)
    kernel = np.ones((3, 4, 8), np.float32)
    table = np.arange(32, dtype=np.float32).reshape(8, 4)

    def abstract(spec):
        return NamedSharding(jax.sharding.get_abstract_mesh(), spec)

    def conv(x, k, **kw):
        return lax.conv_general_dilated(x, k, (1,), "SAME", dimension_numbers=dn, **kw)

    return {
        # test_init: the constraint names the AbstractMesh; JAX compiles over set_mesh's mesh
        "jit_constraint_over_abstract_mesh": (auto, lambda: jax.jit(
            lambda: lax.with_sharding_constraint(jnp.ones((8, 2)), abstract(P("x", "y"))))()),
        # test_separate_opt_sharding: a jit under set_mesh runs over the mesh, replicated
        "jit_under_set_mesh": (auto, lambda: jax.jit(lambda a: a * 2)(value)),
        "jit_without_arguments_under_set_mesh": (auto, lambda: jax.jit(
            lambda: jnp.arange(8.0))()),
        "same_jit_under_another_mesh": (auto, lambda: _under_both(jax, twice, value, other)),
        "random_normal_under_set_mesh": (auto, lambda: jax.random.normal(
            jax.random.key(0), (4, 2)) * 0 + 1),
        # test_out_sharding_dropout: typed over the Mesh and over its AbstractMesh, one mesh
        "select_mesh_and_abstract_mesh": (explicit, lambda: jax.jit(
            lambda a: lax.select(reshard(jnp.ones(a.shape, bool), abstract(P("x"))), a,
                                 jnp.zeros_like(a)))(reshard(value, P("x")))),
        # test_shard_optimizer_state, test_logical_rules: optax's zeros_like keeps the sharding
        "zeros_like_of_sharded": (auto, lambda: jnp.zeros_like(
            jax.device_put(value, NamedSharding(auto, P("x", "y"))))),
        "ones_like_of_sharded_other_dtype": (auto, lambda: jnp.ones_like(
            jax.device_put(value, NamedSharding(auto, P("x"))), dtype=np.int32)),
        "full_like_of_replicated_other_shape": (auto, lambda: jnp.full_like(
            jax.device_put(value, NamedSharding(auto, P())), 3.0, shape=(2, 2))),
        "zeros_like_of_constrained": (auto, lambda: jnp.zeros_like(
            lax.with_sharding_constraint(jnp.ones((8, 2)), abstract(P("x", "y"))))),
        "lax_full_like_of_sharded": (auto, lambda: lax.full_like(
            jax.device_put(value, NamedSharding(auto, P("x", "y"))), 2.0)),
        "lax_full_like_sharding": (auto, lambda: lax.full_like(
            value, 2.0, sharding=NamedSharding(auto, P("x")))),
        # test_variable_out_sharding_types: a Format's sharding (its layout changes no value)
        "constraint_to_format": (auto, lambda: lax.with_sharding_constraint(
            value, Format(Layout(major_to_minor=(1, 0)), NamedSharding(auto, P("x", None))))),
        "jit_constraint_to_format": (auto, lambda: jax.jit(lambda a: lax.with_sharding_constraint(
            a * 2, Format(Layout(major_to_minor=(0, 1)), NamedSharding(auto, P("x")))))(value)),
        # test_out_sharding_conv: conv_general_dilated's sharding rule and out_sharding=
        "conv_keeps_batch_sharding": (explicit, lambda: conv(reshard(signal, P("x")), kernel)),
        "conv_out_sharding": (explicit, lambda: conv(reshard(signal, P("x")), kernel,
                                                     out_sharding=P("x", "y", None))),
        "jit_conv_out_sharding": (explicit, lambda: jax.jit(lambda a, k: conv(
            a, k, out_sharding=P("x", "y", None)))(reshard(signal, P("x")), kernel)),
        "conv_split_kernel": (explicit, lambda: conv(reshard(signal, P("x")),
                                                     reshard(kernel, P(None, None, "y")))),
        "conv_split_features": (explicit, lambda: conv(reshard(signal, P(None, None, "y")),
                                                       kernel)),
        # test_out_sharding_embed: gather's sharding rule
        "take_split_table_split_indices": (explicit, lambda: jnp.take(
            reshard(table, P("x")), reshard(jnp.arange(4), P("y")), axis=0)),
        "take_split_table": (explicit, lambda: jnp.take(reshard(table, P("x")), jnp.arange(4),
                                                        axis=0)),
        "take_split_indices": (explicit, lambda: jnp.take(table, reshard(jnp.arange(4), P("y")),
                                                          axis=0)),
        "take_split_columns": (explicit, lambda: jnp.take(reshard(table, P(None, "y")),
                                                          jnp.arange(4), axis=0)),
        "index_rows_of_split_columns": (explicit, lambda: reshard(table, P(None, "y"))[
            jnp.array([1, 3])]),
        "at_get_out_sharding": (explicit, lambda: reshard(table, P("x")).at[
            reshard(jnp.arange(4), P("y"))].get(out_sharding=P("y"))),
        # JAX's examples/spmd_mnist_classifier_fromscratch: logsumexp selects between the max
        # and zeros of its type, and max's gradient between ones and zeros, all split as the
        # batch (zeros in, so every value is exact)
        "logsumexp_of_a_split_batch": (explicit, lambda: jax.jit(
            lambda a: jax.scipy.special.logsumexp(a, axis=1))(
                reshard(jnp.zeros((8, 1)), P("x")))),
        "grad_through_logsumexp_of_a_split_batch": (explicit, lambda: jax.jit(jax.grad(
            lambda w, a: -jnp.mean(a @ w - jax.scipy.special.logsumexp(
                a @ w, axis=1, keepdims=True))))(
                    jnp.ones((4, 4)), reshard(jnp.zeros((8, 4)), P("x")))),
    }


def _under_both(jax, f, value, other):
    """f(value) under the mesh set, then under `other`: compiled again, over its devices."""
    f(value)
    with jax.set_mesh(other):
        return f(value)


def run(jax):
    out = {"device_count": len(jax.devices())}
    for name, (mesh, fn) in _programs(jax).items():
        try:
            with jax.set_mesh(mesh):
                out[name] = _describe(jax, fn())
        except Exception as e:          # what was raised is a fact too
            out[name] = {"error": [type(e).__name__, _cut(str(e))]}
    return out
