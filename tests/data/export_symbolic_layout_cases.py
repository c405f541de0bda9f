"""The cases that reference/make_export_symbolic_layout_reference.py runs on JAX 0.10.2 and
tests/export/test_export_symbolic_layout.py on jxkernel (2 CPU devices): jax.export, with
symbolic shapes, of a program partitioned over a mesh whose body reads a symbolic dimension
as a value (`b * b.shape[0]`), over a mesh of Explicit axes (make_mesh's) and one of Auto axes: a jit
given in/out_shardings, one called with an argument split over the mesh, one with a sharding
constraint inside, one resharding under set_mesh, and shard_map bodies (the block's size `b1`, and the global one outside). Each export is called on inputs of two
sizes; recorded: its in/out avals, shardings (specs over its mesh), nr_devices, the values
(integers, exact in float32), and the error texts where JAX refuses. `run(jax)` takes the
`jax` module (real or jxkernel) and returns JSON data."""
import numpy as np


def _error(e) -> list:
    # (less JAX's " This error occurs at source: <file>:<line>", which names this file's path)
    text = str(e).splitlines()[0] if str(e) else ""
    return [type(e).__name__, text.split(" This error occurs at source:")[0]]


def _specs(shardings) -> list:
    return [None if s is None else [str(s.spec), getattr(s, "memory_kind", None)]
            for s in shardings]


def _export(jax, out, name, f, poly, sizes, put):
    spec, = jax.export.symbolic_args_specs((np.ones((4, 3), np.float32),), poly)
    try:
        exp = jax.export.export(f)(spec)
    except Exception as e:               # noqa: BLE001 (JAX's refusal is recorded)
        out[f"{name} export"] = _error(e)
        return
    mesh = put.mesh
    out[f"{name} export"] = {
        "in_avals": [str(a) for a in exp.in_avals], "out_avals": [str(a) for a in exp.out_avals],
        "nr_devices": exp.nr_devices,
        "in_shardings": _specs(exp.in_shardings_jax(mesh)),
        "out_shardings": _specs(exp.out_shardings_jax(mesh))}
    for n in sizes:
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        try:
            res = exp.call(jax.device_put(x, put))
            out[f"{name} call {n}"] = [np.asarray(res).tolist(), str(res.sharding.spec)]
        except Exception as e:           # noqa: BLE001
            out[f"{name} call {n}"] = _error(e)


def _over(jax, out, mesh, axes):
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    split = NamedSharding(mesh, P("x", None))
    whole = NamedSharding(mesh, P())
    scale = lambda b: b * b.shape[0]                                   # noqa: E731
    given = jax.jit(scale, in_shardings=split, out_shardings=split)
    for poly, sizes in (("2*b1,_", (4, 6)), ("b,_", (4, 6)), ("2*b1,c", (4, 6))):
        _export(jax, out, f"{axes} given {poly}", given, poly, sizes, split)
    _export(jax, out, f"{axes} in_only 2*b1,_", jax.jit(scale, in_shardings=split), "2*b1,_",
            (4, 6), split)
    _export(jax, out, f"{axes} out_only 2*b1,_", jax.jit(scale, out_shardings=split),
            "2*b1,_", (4, 6), whole)
    _export(jax, out, f"{axes} split argument 2*b1,_", jax.jit(scale), "2*b1,_", (4, 6), split)
    constrained = jax.jit(lambda b: jax.lax.with_sharding_constraint(scale(b), split))
    _export(jax, out, f"{axes} constraint 2*b1,_", constrained, "2*b1,_", (4, 6), whole)
    _export(jax, out, f"{axes} constraint before b,_", jax.jit(
        lambda b: scale(jax.lax.with_sharding_constraint(b, whole))), "b,_", (4, 6), whole)
    body = jax.shard_map(scale, mesh=mesh, in_specs=(P("x", None),), out_specs=P("x", None))
    _export(jax, out, f"{axes} shard_map 2*b1,_", jax.jit(body), "2*b1,_", (4, 6), split)
    outside = jax.jit(lambda b: jax.shard_map(
        lambda c: c * 2, mesh=mesh, in_specs=(P("x", None),), out_specs=P("x", None))(b)
        * b.shape[0], in_shardings=split)
    _export(jax, out, f"{axes} shard_map outside 2*b1,_", outside, "2*b1,_", (4, 6), split)
    with jax.set_mesh(mesh):             # a result typed by reshard (Explicit axes: recorded)
        _export(jax, out, f"{axes} reshard 2*b1,_", jax.jit(
            lambda b: scale(jax.reshard(b, P("x", None)))), "2*b1,_", (4, 6), whole)


def run(jax) -> dict:
    out = {"device_count": len(jax.devices())}
    devices = jax.devices()[:2]
    _over(jax, out, jax.make_mesh((2,), ("x",), devices=devices), "explicit")
    Auto = jax.sharding.AxisType.Auto
    _over(jax, out, jax.make_mesh((2,), ("x",), devices=devices, axis_types=(Auto,)), "auto")
    return out
