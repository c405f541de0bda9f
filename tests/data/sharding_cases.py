"""Sharding cases run alike by real JAX (reference/make_sharding_reference.py records them in
sharding_reference.json) and by jxkernel (tests/sharding/test_sharding.py, in a subprocess with 8 CPU
devices): `run(jax)` returns plain JSON data — specs, shard indices, the sharding picture,
output shardings of jit and values.

    run(jax)["shards"]["P('x',)"][2]  ->  {"device": 2, "index": [[4, 6], [0, 4]], ...}

The mesh is built with `Mesh` (Auto axes: XLA propagates the shardings) rather than
`make_mesh` (Explicit axes in JAX 0.10.2, whose sharding in types explicit_sharding_cases.py
covers).
"""
import contextlib
import functools
import io

import numpy as np
from recorded_errors import SOURCE_NOTE, error_of

SPECS = (("x",), ("x", "y"), (None, "y"), (("x", "y"),), ())


def _index(index, shape):
    return [[0 if s.start is None else s.start, n if s.stop is None else s.stop]
            for s, n in zip(index, shape)]


def _shards(x):
    return [{"device": s.device.id, "index": _index(s.index, x.shape),
             "replica_id": s.replica_id, "data": np.asarray(s.data).tolist()}
            for s in sorted(x.addressable_shards, key=lambda s: s.device.id)]


def _picture(jax, x):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.debug.visualize_array_sharding(x)
    return out.getvalue()


_error = functools.partial(error_of, cut=SOURCE_NOTE)


def _loss(jnp, params, xb, yb):
    h = jnp.tanh(xb @ params["w1"] + params["b1"])
    return jnp.mean((h @ params["w2"] - yb) ** 2)


def run(jax):
    jnp, lax = jax.numpy, jax.lax
    Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    named = {repr(P(*s)): NamedSharding(mesh, P(*s)) for s in SPECS}
    value = np.arange(32, dtype=np.float32).reshape(8, 4)
    out = {"mesh": [repr(mesh), str(mesh)], "shards": {}, "pictures": {}, "sharding": {}}
    out["meshes"] = [repr(mesh.abstract_mesh), repr(jax.sharding.get_mesh()),
                     str(jax.sharding.get_mesh()), repr(jax.sharding.get_abstract_mesh()),
                     list(mesh.shape.items()), mesh.size, mesh.axis_sizes]
    for name, s in named.items():
        x = jax.device_put(value, s)
        out["shards"][name] = _shards(x)
        out["pictures"][name] = _picture(jax, x)
        out["sharding"][name] = [repr(x.sharding), list(s.shard_shape(value.shape)),
                                 s.is_fully_replicated, x.is_fully_replicated,
                                 sorted(d.id for d in x.devices())]
    x1 = jax.device_put(np.arange(8, dtype=np.float32), named["P('x',)"])
    out["pictures"]["1d P('x',)"] = _picture(jax, x1)

    x = jax.device_put(value, NamedSharding(mesh, P("x", None)))
    xy = jax.device_put(value, named["P('x', 'y')"])
    out["shard_repr"] = [repr(xy.addressable_shards[3]), np.asarray(xy.addressable_data(5)).tolist()]
    results = {
        "matmul": jax.jit(lambda a: jnp.sin(a) @ a.T)(x),
        "sum0": jax.jit(lambda a: a.sum(0))(x),
        "add": jax.jit(lambda a, b: a * 2 + b)(x, xy),
        "transpose": jax.jit(lambda a: a.T)(xy),
        "given": jax.jit(lambda a: a * 3, in_shardings=named["P(None, 'y')"],
                         out_shardings=named["P('x',)"])(value),
        "constraint": jax.jit(lambda a: lax.with_sharding_constraint(
            jnp.cos(a), named["P(None, 'y')"]) + 1)(x),
        "eager_add": x + 1, "eager_sin": jnp.sin(xy), "eager_sum0": xy.sum(0),
        "eager_mixed": lax.add(jnp.ones((8, 4)), xy),
        "constraint_only": jax.jit(lambda a: lax.with_sharding_constraint(
            a * 2, named["P('x', 'y')"]))(value),
        "vmap_of_jit": jax.vmap(jax.jit(lambda a: lax.with_sharding_constraint(
            a - 1, named["P('x',)"])))(value.T),
        "grad_of_sharded_jit": jax.grad(jax.jit(lambda a: (a ** 2).sum(),
                                                in_shardings=named["P('x',)"]))(value),
        "vmap_of_sharded_jit": jax.vmap(jax.jit(lambda a: a * 3, in_shardings=named["P('x',)"],
                                                out_shardings=named["P('x',)"]))(value.T),
    }
    out["jit"] = {k: [repr(r.sharding.spec), np.asarray(r).tolist()] for k, r in results.items()}

    rng = np.random.RandomState(0)
    params = {"w1": rng.randn(4, 8).astype(np.float32), "b1": rng.randn(8).astype(np.float32),
              "w2": rng.randn(8, 2).astype(np.float32)}
    xb, yb = rng.randn(16, 4).astype(np.float32), rng.randn(16, 2).astype(np.float32)
    step = jax.jit(jax.grad(lambda p, a, b: _loss(jnp, p, a, b)))
    batch = NamedSharding(mesh, P("x"))
    sharded = step(jax.device_put(params, NamedSharding(mesh, P())),
                   jax.device_put(xb, batch), jax.device_put(yb, batch))
    plain = step(params, xb, yb)
    out["data_parallel"] = {k: [repr(sharded[k].sharding.spec), np.asarray(sharded[k]).tolist(),
                                np.asarray(plain[k]).tolist()] for k in sorted(params)}

    grid = named["P('x', 'y')"]
    made = jax.make_array_from_callback((8, 4), grid, lambda index: value[index])
    pieces = [jax.device_put(value[i], d) for d, i in grid.devices_indices_map((8, 4)).items()]
    joined = jax.make_array_from_single_device_arrays((8, 4), grid, pieces[::-1])
    out["made"] = {"callback": [repr(made.sharding.spec), _shards(made)],
                   "single_device_arrays": [repr(joined.sharding.spec), _shards(joined)]}

    explicit = jax.make_mesh((4, 2), ("x", "y"))          # Explicit axes: reshard's domain
    moved = jax.sharding.reshard(jax.device_put(value, NamedSharding(explicit, P("x"))),
                                 NamedSharding(explicit, P(None, "y")))
    out["reshard"] = [repr(explicit), repr(moved.sharding), _shards(moved)]
    mixed = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,
                                                          jax.sharding.AxisType.Auto))

    out["errors"] = {
        "reshard_auto": _error(lambda: jax.sharding.reshard(x, named["P(None, 'y')"])),
        "rank": _error(lambda: jax.device_put(np.zeros(8), named["P('x', 'y')"])),
        "axis_name": _error(lambda: NamedSharding(mesh, P("z"))),
        "indivisible": _error(lambda: jax.device_put(np.zeros((6, 2)), named["P('x',)"])),
        "duplicate": _error(lambda: NamedSharding(mesh, P("x", "x"))),
        "jit_scalar": _error(lambda: jax.jit(lambda u, k: u * k, in_shardings=named["P('x',)"])(
            value, 3.0)),
        "jit_rank": _error(lambda: jax.jit(lambda u: u, in_shardings=named["P('x', 'y')"])(
            np.zeros(8, np.float32))),
        "in_shardings_length": _error(lambda: jax.jit(lambda p: p, in_shardings=(
            named["P()"], named["P('x',)"]))({"w": value, "b": value})),
        "in_shardings_keys": _error(lambda: jax.jit(lambda p: p, in_shardings=(
            {"w": named["P()"]},))({"w": value, "b": value})),
        "out_shardings_type": _error(lambda: jax.jit(lambda p: p, out_shardings=(
            named["P()"], named["P('x',)"]))({"w": value, "b": value})),
        "jit_output": _error(lambda: jax.jit(lambda u: u.sum(), out_shardings=named["P('x',)"])(
            value)),
        # a type's Explicit axes that do not divide: JAX's type check says it first (a
        # ValueError), before the layout's IndivisibleError (which an Auto axis still gets)
        "indivisible_explicit": _error(lambda: jax.device_put(
            np.zeros((6, 2)), NamedSharding(explicit, P("x")))),
        "indivisible_explicit_second": _error(lambda: jax.device_put(
            np.zeros((8, 3)), NamedSharding(explicit, P("x", "y")))),
        "indivisible_auto_axis": _error(lambda: jax.device_put(
            np.zeros((8, 3)), NamedSharding(mixed, P("x", "y")))),
        "indivisible_explicit_of_mixed": _error(lambda: jax.device_put(
            np.zeros((6, 2)), NamedSharding(mixed, P("x", "y")))),
        "indivisible_zeros_out_sharding": _error(lambda: jax.jit(lambda: jnp.zeros(
            (6, 2), out_sharding=NamedSharding(explicit, P("x"))))()),
        "indivisible_zeros_eager": _error(lambda: jnp.zeros(
            (6, 2), out_sharding=NamedSharding(explicit, P("x")))),
    }
    return out
