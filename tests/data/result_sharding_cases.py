"""What `.sharding` a result reports, for the programs a learner writes, run alike by real JAX
(reference/make_result_sharding_reference.py records them in result_sharding_reference.json,
once with one CPU device and once with 8) and by jxkernel (tests/sharding/test_result_sharding.py,
in subprocesses with as many devices): `run(jax)` returns plain JSON data, per program the
result's type, its sharding's type, repr and spec, `jax.typeof`, `is_fully_replicated`, the
addressable shards (device, index, shape) and the value.

    run(jax)["jit_out_shardings"]  ->  {"sharding": "NamedSharding(mesh=Mesh('x': 1, ...", ...}

The meshes are built over all the devices there are (`Mesh`, Auto axes; one with Explicit axes
for reshard and sharding in types), so one list serves both device counts. Values are small
integers in float32: every result is exact.
"""
import functools

import numpy as np
from recorded_errors import SOURCE_NOTE, TRACEBACK_NOTE


def _cut(text):
    return text.split(SOURCE_NOTE)[0].split(TRACEBACK_NOTE)[0]


def _describe(jax, x):
    s = x.sharding
    return {"type": type(x).__name__, "sharding_type": type(s).__name__,
            "sharding": repr(s), "spec": repr(getattr(s, "spec", None)),
            "typeof": str(jax.typeof(x)), "replicated": bool(x.is_fully_replicated),
            "shards": sorted([s.device.id, repr(s.index), list(s.data.shape)]
                             for s in x.addressable_shards),
            "value": np.asarray(x).tolist()}


def _programs(jax):
    """name -> a function of no arguments returning an Array or a pytree of them."""
    jnp, lax = jax.numpy, jax.lax
    Mesh, NamedSharding, P = (jax.sharding.Mesh, jax.sharding.NamedSharding,
                              jax.sharding.PartitionSpec)
    devices = jax.devices()
    n = len(devices)
    mesh = Mesh(np.array(devices), ("x",))
    mesh2 = Mesh(np.array(devices).reshape(n // 2 or 1, 2 if n > 1 else 1), ("x", "y"))
    explicit = jax.make_mesh((n,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    rows, cols = NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "x"))
    repl = NamedSharding(mesh, P())
    value = np.arange(16, dtype=np.float32).reshape(8, 2)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    xs = jax.device_put(value, rows)
    x2 = jax.device_put(value, NamedSharding(mesh2, P("x", "y")))
    xe = jax.device_put(value, NamedSharding(explicit, P("x")))
    double = jax.jit(lambda a: a * 2)
    smap = functools.partial(jax.shard_map, mesh=mesh)
    return {
        "plain": lambda: jnp.arange(8.0),
        "from_numpy": lambda: jnp.asarray(value),
        "device_put_device": lambda: jax.device_put(value, devices[0]),
        "device_put_rows": lambda: xs,
        "device_put_cols": lambda: jax.device_put(value.T, cols),
        "device_put_replicated": lambda: jax.device_put(value, repl),
        "device_put_2d": lambda: x2,
        "device_put_explicit": lambda: xe,
        "device_put_tree": lambda: jax.device_put({"a": value, "b": w}, repl),
        "jit_plain": lambda: double(value),
        "jit_out_shardings": lambda: jax.jit(lambda a: a * 2, out_shardings=rows)(value),
        "jit_out_shardings_replicated": lambda: jax.jit(lambda a: a * 2,
                                                        out_shardings=repl)(value),
        "jit_out_shardings_tree": lambda: jax.jit(lambda a: (a, a.sum(0)),
                                                  out_shardings=(rows, repl))(value),
        "jit_in_shardings": lambda: jax.jit(lambda a: a * 2, in_shardings=rows)(value),
        "jit_in_out_shardings": lambda: jax.jit(lambda a: (a + 1).T, in_shardings=rows,
                                                out_shardings=cols)(value),
        "jit_of_sharded": lambda: double(xs),
        "jit_of_sharded_2d": lambda: double(x2),
        "jit_of_sharded_sum0": lambda: jax.jit(lambda a: a.sum(0))(xs),
        "jit_of_sharded_sum": lambda: jax.jit(lambda a: a.sum())(xs),
        "jit_of_sharded_transpose": lambda: jax.jit(lambda a: a.T)(xs),
        "jit_of_sharded_matmul": lambda: jax.jit(lambda a, b: a @ b)(xs, w),
        "jit_of_sharded_and_plain": lambda: jax.jit(lambda a, b: a + b)(xs, value),
        "jit_of_explicit": lambda: double(xe),
        "jit_of_explicit_sum0": lambda: jax.jit(lambda a: a.sum(0))(xe),
        "eager_mul": lambda: xs * 2,
        "eager_add_plain": lambda: xs + value,
        "eager_sin": lambda: jnp.sin(xs),
        "eager_sum": lambda: xs.sum(),
        "eager_sum0": lambda: xs.sum(0),
        "eager_transpose": lambda: xs.T,
        "eager_matmul": lambda: xs @ w,
        "eager_index": lambda: xs[0],
        "eager_slice": lambda: xs[:4],
        "eager_reshape": lambda: xs.reshape(-1),
        "eager_2d_mul": lambda: x2 * 2,
        "eager_explicit_mul": lambda: xe * 2,
        "eager_explicit_sum0": lambda: xe.sum(0),
        "constraint_jit": lambda: jax.jit(lambda a: lax.with_sharding_constraint(
            a * 2, rows))(value),
        "constraint_jit_replicated": lambda: jax.jit(lambda a: lax.with_sharding_constraint(
            a * 2, repl))(xs),
        "constraint_eager": lambda: lax.with_sharding_constraint(xs, repl),
        "constraint_eager_plain": lambda: lax.with_sharding_constraint(value, rows),
        "reshard_explicit": lambda: jax.sharding.reshard(xe, NamedSharding(explicit, P())),
        "reshard_explicit_spec": lambda: jax.sharding.reshard(
            xe, NamedSharding(explicit, P(None, "x"))),
        "reshard_jit": lambda: jax.jit(lambda a: jax.sharding.reshard(
            a * 2, NamedSharding(explicit, P())))(xe),
        "shard_map_rows": lambda: smap(lambda a: a * 2, in_specs=P("x"), out_specs=P("x"))(xs),
        "shard_map_psum": lambda: smap(lambda a: lax.psum(a.sum(0), "x"), in_specs=P("x"),
                                       out_specs=P())(xs),
        "shard_map_plain_arg": lambda: smap(lambda a: a + 1, in_specs=P("x"),
                                            out_specs=P("x"))(value),
        "jit_shard_map": lambda: jax.jit(smap(lambda a: a * 2, in_specs=P("x"),
                                              out_specs=P("x")))(value),
        "jit_shard_map_psum": lambda: jax.jit(smap(lambda a: lax.psum(a, "x"), in_specs=P("x"),
                                                   out_specs=P()))(xs),
        "pmap": lambda: jax.pmap(lambda a: a * 2)(np.ones((n, 2), np.float32)),
        "pmap_psum": lambda: jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(
            np.ones((n, 2), np.float32)),
        "jit_pmap": lambda: jax.jit(jax.pmap(lambda a: a * 2))(np.ones((n, 2), np.float32)),
        # a key array's result: its key data's dimension never split ({devices=[8,1]})
        "jit_pmap_of_keys": lambda: jax.jit(jax.pmap(jax.random.bits))(
            jax.random.split(jax.random.key(0), n)),
        "jit_pmap_other_mesh": lambda: jax.jit(jax.pmap(lambda a: a * 2))(jax.device_put(
            np.ones((n, 2), np.float32), NamedSharding(Mesh(np.array(devices), ("other",)),
                                                       P("other")))),
        "pmap_other_mesh": lambda: jax.pmap(lambda a: a * 2)(jax.device_put(
            np.ones((n, 2), np.float32), NamedSharding(Mesh(np.array(devices), ("other",)),
                                                       P("other")))),
        "grad_of_sharded": lambda: jax.grad(lambda a: (a * a).sum())(xs),
        "jit_grad_of_sharded": lambda: jax.jit(jax.grad(lambda a: (a * a).sum()))(xs),
        "vmap_of_sharded": lambda: jax.vmap(lambda a: a * 2)(xs),
        "set_mesh_jit": lambda: _under(jax, explicit, lambda: jax.jit(
            lambda a: a * 2, out_shardings=P("x"))(value)),
        "set_mesh_device_put": lambda: _under(jax, explicit, lambda: jax.device_put(value, P("x"))),
        "set_mesh_auto_jit": lambda: _under(jax, mesh, lambda: jax.jit(
            lambda a: a * 2, out_shardings=P("x"))(value)),
        "set_mesh_auto_eager": lambda: _under(jax, mesh, lambda: jnp.arange(8.0) * 2),
        "zeros_out_sharding": lambda: jnp.zeros((8, 2), out_sharding=NamedSharding(explicit,
                                                                                   P("x"))),
        "asarray_of_sharded": lambda: jnp.asarray(xs),
        "copy_of_sharded": lambda: xs.copy(),
        "astype": lambda: xs.astype(np.int32),
        "back_to_device": lambda: jax.device_put(xs, devices[0]),
        "device_put_sharded_again": lambda: jax.device_put(xs, repl),
        "at_set": lambda: xs.at[0].set(1.0),
        "where": lambda: jnp.where(xs > 3, xs, 0.0),
        "concatenate": lambda: jnp.concatenate([xs, xs]),
        "mean0": lambda: jnp.mean(xs, axis=0),
        "relu": lambda: jax.nn.relu(xs - 4),
        "tree_map": lambda: jax.tree.map(lambda a: a * 2, {"a": xs, "b": x2}),
        "scan_of_sharded": lambda: lax.scan(lambda c, r: (c + r, c), np.zeros(2, np.float32),
                                            xs),
        "dot_explicit_out": lambda: jnp.dot(xe, w, out_sharding=NamedSharding(explicit, P())),
        "make_array_from_callback": lambda: jax.make_array_from_callback(
            (8, 2), rows, lambda index: value[index]),
        "data_parallel_step": lambda: jax.jit(jax.grad(
            lambda p, b: ((b @ p["w"]) ** 2).sum()))(
            jax.device_put({"w": w}, repl), xs),
        "donated": lambda: jax.jit(lambda a: a + 1, donate_argnums=0)(
            jax.device_put(value, rows)),
    }


def _under(jax, mesh, fn):
    with jax.set_mesh(mesh):
        return fn()


def run(jax):
    out = {"device_count": len(jax.devices())}
    for name, fn in _programs(jax).items():
        try:
            out[name] = jax.tree_util.tree_map(functools.partial(_describe, jax), fn())
        except Exception as e:          # what was raised is a fact too
            out[name] = {"error": [type(e).__name__, _cut(str(e))]}
    return out
