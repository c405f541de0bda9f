"""Cases for gaps closed at stop 69 around programs over a mesh and jit's caches: `run(jax)`
on one device, `run_mesh(jax)` on 8 CPU devices. reference/make_partitioned_gaps_reference.py
records JAX 0.10.2's answers into partitioned_gaps_reference.json;
tests/sharding/test_partitioned_gaps.py runs the same with jxkernel and compares exactly
(ints, bits, shapes, texts, error words)."""
import importlib

import numpy as np
from public_names_cases import enc


def _shardings(tree, jax):
    return [repr(s) for s in jax.tree_util.tree_leaves(tree, is_leaf=lambda s: s is None)]


def _structs(tree, jax):
    """Each ShapeDtypeStruct as shape, dtype and sharding (JAX's repr adds a `format` that
    jxkernel does not model)."""
    return [[list(s.shape), str(s.dtype), repr(s.sharding)] for s in jax.tree_util.tree_leaves(tree)]


def serialize_mesh_cases(jax):
    """jax.experimental.serialize_executable of jits partitioned over a mesh: the loaded
    Compiled computes what the original does, its results laid out alike, with the same
    shardings, argument info and kept arguments; donation; a mesh on some devices only;
    execution devices that lack the mesh's."""
    jnp, sh = jax.numpy, jax.sharding
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    P, out = sh.PartitionSpec, {}
    mesh = sh.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    closed = jnp.arange(4.0)                  # closed over: a constant of the program

    def f(a, b):
        return {"s": a * 2 + closed, "t": (a.sum(0), b @ b.T)}
    jf = jax.jit(f, in_shardings=(sh.NamedSharding(mesh, P("x", "y")),
                                  sh.NamedSharding(mesh, P("x"))))
    a, b = jnp.arange(32.0).reshape(8, 4), jnp.ones((8, 3))
    compiled = jf.lower(a, b).compile()
    payload, in_tree, out_tree = se.serialize(compiled)
    loaded = se.deserialize_and_load(payload, in_tree, out_tree)
    got, want = loaded(a, b), compiled(a, b)
    out["values"] = [enc(got), enc(want), _shardings(got, jax), _shardings(want, jax)]
    out["signature"] = [type(payload).__name__, str(in_tree), str(out_tree),
                        isinstance(loaded, jax.stages.Compiled), repr(loaded.args_info),
                        _shardings(loaded.input_shardings, jax),
                        _shardings(loaded.output_shardings, jax),
                        _structs(loaded.out_info, jax), sorted(loaded._executable._kept_var_idx)]

    # an unused argument (not kept), given output shardings, one argument donated
    s = sh.NamedSharding(mesh, P("x"))
    jg = jax.jit(lambda u, unused, v: (u * v, u + v), in_shardings=(s, None, s),
                 out_shardings=(sh.NamedSharding(mesh, P("y")), None), donate_argnums=0)
    u, v = jnp.arange(16.0).reshape(8, 2), jnp.full((8, 2), 2.0)
    loaded = se.deserialize_and_load(*se.serialize(jg.lower(u, jnp.ones(3), v).compile()))
    given = jax.device_put(u, s)
    got = loaded(given, jnp.ones(3), v)
    out["donated"] = [enc(got), _shardings(got, jax), given.is_deleted(),
                      _shardings(loaded.input_shardings, jax), repr(loaded.args_info),
                      sorted(loaded._executable._kept_var_idx)]

    # a mesh of two of the devices, loaded onto those; execution devices without them
    pair = sh.Mesh(np.array(jax.devices()[2:4]), ("d",))
    h = jax.jit(lambda w: w * 3, in_shardings=sh.NamedSharding(pair, P("d")))
    saved = se.serialize(h.lower(jnp.arange(4.0)).compile())
    got = se.deserialize_and_load(*saved, execution_devices=jax.devices()[2:4])(jnp.arange(4.0))
    out["two_devices"] = [enc(got), repr(got.sharding),
                          [d.id for d in got.sharding._device_assignment]]
    try:
        se.deserialize_and_load(*saved, execution_devices=jax.devices()[:2])
        out["missing_devices"] = "no error"
    except Exception as e:
        out["missing_devices"] = [type(e).__name__, str(e)]

    # under set_mesh, a bare PartitionSpec
    w = jnp.ones((8, 4))
    with jax.set_mesh(mesh):
        k = jax.jit(lambda w: jnp.sin(w) @ w.T, in_shardings=P("x", "y"))
        compiled = k.lower(w).compile()
    loaded = se.deserialize_and_load(*se.serialize(compiled))
    got = loaded(w)
    out["set_mesh"] = [enc(got) == enc(compiled(w)), repr(got.sharding),
                       _shardings(loaded.output_shardings, jax)]
    return out


def run(jax) -> dict:
    return {}


def run_mesh(jax) -> dict:
    return {"serialize": serialize_mesh_cases(jax)}
