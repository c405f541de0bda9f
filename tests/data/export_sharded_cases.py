"""jax.export of programs over several devices, on 8 simulated CPU devices: a jit with
in_shardings/out_shardings (NamedShardings over a Mesh), arguments already split over a mesh, a
shard_map inside; what the Exported tells (`nr_devices`, `in_shardings_hlo`,
`in_shardings_jax(mesh)`...), its module's Shardy text (`mhlo.num_partitions`, `sdy.mesh`,
`sdy.sharding`), calls on a mesh of the same size (eagerly, under jit, under grad) and JAX's
errors for another device count. Also on one device: a jit given SingleDeviceShardings (where
it runs, JAX's device-mismatch errors, its Lowered's types) and exports whose committed
argument or SingleDeviceShardings JAX records over an empty mesh (`sdy.mesh @empty_mesh`); and
the types `jit(f).lower(...)` gives over Explicit axes. Run alike by real JAX (reference/make_export_sharded_reference.py
records export_sharded_reference.json) and by jxkernel (tests/export/test_export_sharded.py, in a
subprocess with as many devices).

`run(jax, load)` returns {program: {name: JSON data}} and the exported modules' bytes (base64,
in the order the programs export them). Each Exported passes through `load` before use: the
identity for JAX; for jxkernel also serialize-then-deserialize, or the Exported with JAX's
recorded module bytes in place of its own (so JAX's module runs under jxkernel). Values are
small integers in float32 or int32: exact on both sides.
"""
import base64
import dataclasses
import re

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

# an op's location, nested ones included: `loc("x")`, `loc("shard_map:"(#loc3))`, `loc(#loc2)`
_LOC = re.compile(r' loc\((?:"(?:[^"\\]|\\.)*"|\([^()]*\)|[^()"])*\)')


def _error(fn):
    found = error_of(fn, TRACEBACK_NOTE)
    return found and [found[0], found[1].strip()]


def _meshes(jax):
    AxisType = jax.sharding.AxisType
    devices = jax.devices()
    return {"a": jax.sharding.Mesh(devices, ("a",)),
            "a_reversed": jax.sharding.Mesh(devices[::-1], ("a",)),
            "xy": jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2),
            "xy_explicit": jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2),
            "a4": jax.sharding.Mesh(devices[:4], ("a",)),
            "b": jax.sharding.Mesh(devices, ("b",)),
            "bc": jax.make_mesh((2, 4), ("b", "c"), axis_types=(AxisType.Auto,) * 2)}


def _placed(jax, value, mesh, *spec):
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))
    return jax.device_put(value, sharding)


def _array(x) -> dict:
    """An Array's value, sharding and where each block lives."""
    return {"value": np.asarray(x).tolist(), "sharding": repr(x.sharding),
            "shards": [[s.device.id, str(s.index), np.asarray(s.data).tolist()]
                       for s in x.addressable_shards]}


def _signature(exp, mesh) -> dict:
    return {"nr_devices": exp.nr_devices, "in_avals": str(exp.in_avals),
            "out_avals": str(exp.out_avals), "in_shardings_hlo": str(exp.in_shardings_hlo),
            "out_shardings_hlo": str(exp.out_shardings_hlo),
            "in_shardings_jax": repr(exp.in_shardings_jax(mesh)),
            "out_shardings_jax": repr(exp.out_shardings_jax(mesh)),
            "in_shardings_abstract": repr(exp.in_shardings_jax(mesh.abstract_mesh)),
            "out_shardings_abstract": repr(exp.out_shardings_jax(mesh.abstract_mesh)),
            "uses_global_constants": exp.uses_global_constants,
            "module": _module_facts(exp.mlir_module())}


def _lines(text) -> list:
    return [_LOC.sub("", line).rstrip() for line in text.splitlines()
            if not line.startswith("#loc")]


def _module_facts(text) -> dict:
    """The module's attributes, its mesh declarations (JAX's attribute dict after them cut),
    `main`'s signature (the arguments' and results' sdy.sharding and result_info), and the
    shard_map (`sdy.manual_computation`) lines, locations removed."""
    lines = _lines(text)
    return {"module": next(line for line in lines if line.startswith("module")),
            "meshes": [line.strip().split(" {")[0] for line in lines
                       if line.strip().startswith("sdy.mesh")],
            "main": next(line.strip() for line in lines if "func.func public @main" in line),
            "manual": [line.strip() for line in lines if "sdy.manual_computation" in line]}


def _call_facts(text) -> dict:
    """In a caller's module: the sharding constraints a call adds, and each sdy.sharding the
    inlined exported functions' signatures carry."""
    lines = _lines(text)
    return {"constraints": [line.strip() for line in lines if "sdy.sharding_constraint" in line],
            "callee_shardings": [s for line in lines if "func.func private" in line
                                 for s in re.findall(r"#sdy\.sharding<[^>]*>", line)]}


# ------------------------------------------------------------------ programs
def sharded_docstring(jax, load):
    """Exported.in_shardings_jax's docstring: exported over a mesh, run over the same devices
    in reverse order."""
    export, meshes = jax.export, _meshes(jax)
    mesh, run_mesh = meshes["a"], meshes["a_reversed"]
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    exp = load(export.export(jax.jit(lambda x: jax.numpy.add(x, x),
                                     in_shardings=NamedSharding(mesh, P("a"))))(np.arange(8)))
    arg = jax.device_put(np.arange(8), exp.in_shardings_jax(run_mesh)[0])
    return {**_signature(exp, mesh), "call": _array(exp.call(arg)),
            "run_shardings": repr(exp.in_shardings_jax(run_mesh)),
            "jit_call": _array(jax.jit(exp.call)(arg)),
            "jit_call_text": _call_facts(jax.jit(exp.call).lower(arg).as_text())}


def _two_axes(jax, mesh, out_shardings):
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    in_shardings = (NamedSharding(mesh, P("x", "y")), NamedSharding(mesh, P(None, "y")))
    return jax.jit(lambda x, y: (x @ y, x.sum()), in_shardings=in_shardings,
                   out_shardings=out_shardings)


def sharded_two_axes(jax, load):
    """A 4x2 mesh, every input and output given a sharding; called eagerly and under jit."""
    mesh = _meshes(jax)["xy"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    specs = (jax.ShapeDtypeStruct((8, 4), np.float32), jax.ShapeDtypeStruct((4, 4), np.float32))
    exp = load(jax.export.export(_two_axes(jax, mesh, (NamedSharding(mesh, P("x")),
                                                        NamedSharding(mesh, P()))))(*specs))
    x = _placed(jax, np.arange(32, dtype=np.float32).reshape(8, 4), mesh, "x", "y")
    y = _placed(jax, np.arange(16, dtype=np.float32).reshape(4, 4) % 3, mesh, None, "y")
    product, total = exp.call(x, y)
    under_jit = jax.jit(lambda a, b: exp.call(a, b)[0] + 1)(x, y)
    return {**_signature(exp, mesh), "product": _array(product), "total": _array(total),
            "under_jit": _array(under_jit)}


def sharded_unspecified(jax, load):
    """Some inputs and outputs left unspecified (None), the others given."""
    mesh = _meshes(jax)["xy"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    f = jax.jit(lambda x, y: (x * 2 + y, y), in_shardings=(NamedSharding(mesh, P("x")), None),
                out_shardings=(None, NamedSharding(mesh, P(None, "y"))))
    specs = [jax.ShapeDtypeStruct((8, 2), np.float32)] * 2
    exp = load(jax.export.export(f)(*specs))
    x = _placed(jax, np.arange(16, dtype=np.float32).reshape(8, 2), mesh, "x")
    y = _placed(jax, np.ones((8, 2), np.float32), mesh)
    first, second = exp.call(x, y)
    return {**_signature(exp, mesh), "first_value": np.asarray(first).tolist(),
            "second": _array(second)}


def sharded_argument(jax, load):
    """No shardings given to jit: an argument already split over a mesh gives its own."""
    mesh = _meshes(jax)["xy"]
    x = _placed(jax, np.arange(16, dtype=np.float32).reshape(8, 2), mesh, "x", "y")
    exp = load(jax.export.export(jax.jit(lambda v: v.sum(0)))(x))
    return {**_signature(exp, mesh), "call_value": np.asarray(exp.call(x)).tolist()}


def sharded_explicit(jax, load):
    """Over a mesh of Explicit axes: what the Exported records for a given and an
    unspecified input and output (the given ones in the avals' types too), and the type of
    a call's result given a sharding, eagerly and under jit."""
    mesh = _meshes(jax)["xy_explicit"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    f = jax.jit(lambda x, y: (x * 2 + y, y), in_shardings=(NamedSharding(mesh, P("x")), None),
                out_shardings=(NamedSharding(mesh, P(None, "y")), None))
    specs = [jax.ShapeDtypeStruct((8, 2), np.float32)] * 2
    exp = load(jax.export.export(f)(*specs))
    out = _signature(exp, mesh)
    x = _placed(jax, np.arange(16, dtype=np.float32).reshape(8, 2), mesh, "x")
    first = exp.call(x, x)[0]
    under_jit = jax.jit(lambda a, b: exp.call(a, b)[0])(x, x)
    return {**{k: out[k] for k in ("nr_devices", "in_avals", "out_avals", "in_shardings_hlo",
                                   "in_shardings_jax", "out_shardings_jax", "module")},
            "call": [str(jax.typeof(first)), _array(first)],
            "under_jit": [str(jax.typeof(under_jit)), _array(under_jit)]}


def sharded_shard_map(jax, load):
    """A shard_map inside (a psum over the mesh axis), no shardings given to jit."""
    mesh = _meshes(jax)["a"]
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda x: jax.lax.psum(x, "a"), mesh=mesh, in_specs=P("a"), out_specs=P())
    exp = load(jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct((8,), np.float32)))
    x = _placed(jax, np.arange(8, dtype=np.float32), mesh, "a")
    return {**_signature(exp, mesh), "call": _array(exp.call(x)),
            "on_one_device": _error(lambda: exp.call(np.arange(8, dtype=np.float32)))}


def sharded_device_count(jax, load):
    """JAX's errors: an export over 8 devices called on one or on 4, and its shardings asked
    over a mesh of other axes; it runs on another mesh of 8 devices (its argument constrained
    to the export's sharding there), and an export for one device runs anywhere."""
    meshes = _meshes(jax)
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    exp = load(jax.export.export(jax.jit(lambda x: x * 3, in_shardings=NamedSharding(
        meshes["a"], P("a"))))(jax.ShapeDtypeStruct((8,), np.float32)))
    on_four = _placed(jax, np.arange(8, dtype=np.float32), meshes["a4"], "a")
    single = load(jax.export.export(jax.jit(lambda x: x * 3))(
        jax.ShapeDtypeStruct((8,), np.float32)))
    on_eight = _placed(jax, np.arange(8, dtype=np.float32), meshes["a"], "a")
    return {"on_one_device": _error(lambda: exp.call(np.arange(8, dtype=np.float32))),
            "on_four_devices": _error(lambda: exp.call(on_four)),
            "jit_on_four_devices": _error(lambda: jax.jit(exp.call)(on_four)),
            "mesh_of_four": _error(lambda: exp.in_shardings_jax(meshes["a4"])),
            "mesh_of_other_names": _error(lambda: exp.in_shardings_jax(meshes["b"])),
            "on_other_mesh": _array(exp.call(_placed(jax, np.arange(8, dtype=np.float32),
                                                     meshes["bc"], "b"))),
            "single_nr_devices": single.nr_devices,
            "single_shardings_jax": repr(single.in_shardings_jax(meshes["a"])),
            "single_on_eight": _array(single.call(on_eight))}


def sharded_grad(jax, load):
    """grad through an export over a mesh: its VJP is exported over the mesh too."""
    mesh = _meshes(jax)["xy"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    f = jax.jit(lambda x, w: (x @ w) * 2, in_shardings=(NamedSharding(mesh, P("x")),
                                                       NamedSharding(mesh, P(None, "y"))),
                out_shardings=NamedSharding(mesh, P("x", "y")))
    specs = (jax.ShapeDtypeStruct((8, 4), np.float32), jax.ShapeDtypeStruct((4, 2), np.float32))
    exp = load(jax.export.export(f)(*specs))
    x = _placed(jax, np.arange(32, dtype=np.float32).reshape(8, 4), mesh, "x")
    w = _placed(jax, np.ones((4, 2), np.float32), mesh, None, "y")
    dx, dw = jax.grad(lambda a, b: exp.call(a, b).sum(), argnums=(0, 1))(x, w)
    vjp = exp.vjp()
    return {"vjp_nr_devices": vjp.nr_devices,
            "vjp_in_shardings_jax": repr(vjp.in_shardings_jax(mesh)),
            "vjp_out_shardings_jax": repr(vjp.out_shardings_jax(mesh)),
            "dx": _array(dx), "dw": _array(dw)}


def sharded_variants(jax, load):
    """Over a mesh and also: for two platforms, with a symbolic size, called under set_mesh
    with a host array."""
    mesh = _meshes(jax)["a"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    f = jax.jit(lambda x: x * 3, in_shardings=NamedSharding(mesh, P("a")))
    x = _placed(jax, np.arange(16, dtype=np.float32), mesh, "a")
    spec = jax.ShapeDtypeStruct((16,), np.float32)
    two = load(jax.export.export(f, platforms=("cpu", "cuda"))(spec))
    n, = jax.export.symbolic_shape("8*n")
    poly = load(jax.export.export(f)(jax.ShapeDtypeStruct((n,), np.float32)))
    plain = load(jax.export.export(f)(spec))
    with jax.set_mesh(mesh):
        under_set_mesh = plain.call(np.arange(16, dtype=np.float32))
    return {"platforms": [two.nr_devices, _module_facts(two.mlir_module())["main"]],
            "platforms_call": _array(two.call(x)),
            "symbolic": [poly.nr_devices, str(poly.in_avals), poly.uses_global_constants],
            "symbolic_call": _array(poly.call(x)),
            "under_set_mesh": _array(under_set_mesh)}


def sharded_refused(jax, load):
    """A jit's shardings name every dimension: P.UNCONSTRAINED is refused when jit is made."""
    mesh = _meshes(jax)["a"]
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    loose = NamedSharding(mesh, P(P.UNCONSTRAINED))
    return {"in_shardings": _error(lambda: jax.jit(lambda x: x, in_shardings=loose)),
            "out_shardings": _error(lambda: jax.jit(lambda x: x, out_shardings=[loose])),
            "bare_spec": _error(lambda: jax.jit(lambda x: x, in_shardings=P(P.UNCONSTRAINED)))}


def _placed_where(xs) -> list:
    return [[repr(x.sharding), x.committed, np.asarray(x).tolist()] for x in xs]


def sharded_single_device_jit(jax, load):
    """jit given SingleDeviceShardings: run on that device, results committed there; JAX's
    errors for shardings or committed arguments on other devices, under set_mesh, and for
    what is no sharding."""
    d, S = jax.devices(), jax.sharding.SingleDeviceSharding
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    on_two = jax.device_put(np.arange(3, dtype=np.float32), d[2])
    x, y = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)

    def run(fn):
        return _error(fn) or _placed_where(jax.tree.leaves(fn()))
    both = jax.jit(lambda a, b: (a, b * 2), in_shardings=(S(d[1]), None))
    lowered = jax.jit(lambda a, b: (a, b * 2), in_shardings=(S(d[1]), None),
                      out_shardings=(None, S(d[1]))).lower(x, y)
    return {
        "lowered": [str(lowered.in_avals), str(lowered.out_info)],
        "in": run(lambda: jax.jit(lambda a: a * 2, in_shardings=S(d[1]))(x)),
        "out": run(lambda: jax.jit(lambda a: a * 2, out_shardings=S(d[1]))(x)),
        "mixed": run(lambda: both(x, y)),
        "mixed_out": run(lambda: jax.jit(lambda a, b: (a, b * 2),
                                         out_shardings=(None, S(d[3])))(x, y)),
        "in_moves_committed": run(lambda: jax.jit(lambda a: a * 2, in_shardings=S(d[1]))(on_two)),
        "committed_elsewhere": run(lambda: both(x, on_two)),
        "out_committed_elsewhere": run(lambda: jax.jit(lambda a: a * 2,
                                                       out_shardings=S(d[1]))(on_two)),
        "two_devices": run(lambda: jax.jit(lambda a, b: a + b, in_shardings=(S(d[1]), S(d[2])))(
            x, x)),
        "in_out_devices": run(lambda: jax.jit(lambda a: a, in_shardings=S(d[1]),
                                              out_shardings=S(d[2]))(x)),
        "with_mesh": run(lambda: jax.jit(lambda a, b: (a, b), in_shardings=(
            S(d[1]), NamedSharding(_meshes(jax)["a"], P("a"))))(x, np.arange(8.0))),
        "under_set_mesh": _set_mesh_run(jax, run, S(d[1]), x),
        "not_a_sharding": [_error(lambda: jax.jit(lambda a: a, in_shardings=3)),
                           _error(lambda: jax.jit(lambda a: a, out_shardings="a")),
                           _error(lambda: jax.jit(lambda a: a, in_shardings=d[1]))],
    }


def _set_mesh_run(jax, run, sharding, x):
    with jax.set_mesh(_meshes(jax)["a"]):
        return run(lambda: jax.jit(lambda a: a * 2, in_shardings=sharding)(x))


def sharded_single_device(jax, load):
    """Exports on one device: a committed argument and a jit's SingleDeviceShardings are
    shardings over an empty mesh (`sdy.mesh @empty_mesh`); an uncommitted argument none."""
    d, S = jax.devices(), jax.sharding.SingleDeviceSharding
    empty = jax.sharding.AbstractMesh((), ())
    x = np.arange(4, dtype=np.float32)
    on_one = jax.device_put(x, d[1])
    out = {}
    for name, exp in [
            ("committed", load(jax.export.export(jax.jit(lambda a: a * 2))(on_one))),
            ("uncommitted", load(jax.export.export(jax.jit(lambda a: a * 2))(jax.device_put(x)))),
            ("given", load(jax.export.export(jax.jit(
                lambda a, b: (a * 2, b), in_shardings=(S(d[1]), None),
                out_shardings=(None, S(d[1]))))(x, x)))]:
        out[name] = {
            "nr_devices": exp.nr_devices, "in_avals": str(exp.in_avals),
            "in_shardings_hlo": str(exp.in_shardings_hlo),
            "out_shardings_hlo": str(exp.out_shardings_hlo),
            "in_shardings_jax": repr(exp.in_shardings_jax(empty)),
            "out_shardings_jax": repr(exp.out_shardings_jax(empty)),
            "over_eight": _error(lambda exp=exp: exp.in_shardings_jax(_meshes(jax)["a"])),
            "module": _module_facts(exp.mlir_module())}
        args = (on_one,) * len(exp.in_avals)
        out[name]["call"] = _placed_where(jax.tree.leaves(exp.call(*args)))
        out[name]["jit_call"] = _placed_where(jax.tree.leaves(jax.jit(exp.call)(*args)))
        # (where, not whether committed: jxkernel's call of host data leaves it uncommitted)
        out[name]["host_call"] = [w[::2] for w in _placed_where(
            jax.tree.leaves(exp.call(*[x] * len(args))))]
    return out


def sharded_lowered_types(jax, load):
    """`jit(f).lower(...)` over a mesh: in_avals typed by the shardings over Explicit axes,
    out_info with each given or typed output's sharding, args_info the arguments' own types."""
    meshes, P = _meshes(jax), jax.sharding.PartitionSpec
    NamedSharding = jax.sharding.NamedSharding
    mesh, auto = meshes["xy_explicit"], meshes["xy"]
    spec = jax.ShapeDtypeStruct((8, 2), np.float32)
    given = jax.jit(lambda a, b: a + b, in_shardings=(NamedSharding(mesh, P("x")), None)
                    ).lower(spec, spec)
    own = jax.jit(lambda a: a * 2).lower(_placed(jax, np.ones((8, 2), np.float32), mesh, "x"))
    out_given = jax.jit(lambda a: (a, a * 2), out_shardings=(NamedSharding(auto, P("x")), None)
                        ).lower(spec)
    return {name: [str(lo.in_avals), str(lo.out_info), str(lo.args_info)]
            for name, lo in [("given", given), ("own", own), ("out_given", out_given)]}


PROGRAMS = [sharded_docstring, sharded_two_axes, sharded_unspecified, sharded_argument,
            sharded_explicit, sharded_shard_map, sharded_device_count, sharded_grad,
            sharded_variants, sharded_refused, sharded_single_device_jit,
            sharded_single_device, sharded_lowered_types]


def run(jax, load=None) -> dict:
    """{program: its answers}, "device_count", and "modules": {program: [each exported
    module's bytes, base64]} (taken before `load`)."""
    out, modules = {"device_count": len(jax.devices())}, {}
    for program in PROGRAMS:
        seen = modules[program.__name__] = []

        def through(exp, seen=seen, name=program.__name__):
            seen.append(base64.b64encode(exp.mlir_module_serialized).decode("ascii"))
            return exp if load is None else load(exp, name, len(seen) - 1)
        out[program.__name__] = program(jax, through)
    out["modules"] = modules
    return out


def with_module(exp, blob: str):
    """`exp` with another module (base64 of its portable artifact) in its place."""
    return dataclasses.replace(exp, mlir_module_serialized=base64.b64decode(blob))
