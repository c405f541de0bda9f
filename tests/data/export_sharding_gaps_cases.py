"""The cases that reference/make_export_sharding_gaps_reference.py runs on JAX 0.10.2 and
tests/export/test_export_sharding_gaps.py on jxkernel (8 CPU devices): what JAX's
tests/export_test.py's sharding tests read first: `NamedSharding._to_xla_hlo_sharding` (as
tile dimensions, devices and replication, which do not depend on XLA's printed form),
`AbstractMesh.abstract_device` and `AbstractMesh(abstract_device=)`, jax.export of a program
whose only mesh is an AbstractMesh, called on a mesh of devices, and an export for one device
called with an argument split over 8, and the names of an export's mesh and its caller's
(`@mesh`, `@mesh_0`), arrays and jits given GSPMDShardings, and a shard_map exported with
symbolic shapes. `run(jax)` takes the
`jax` module (real or jxkernel) and returns JSON data."""
import numpy as np

# (mesh shape, mesh names, spec parts, array rank)
HLO_CASES = [((2, 1), ("x", "y"), (None,), 2), ((2, 1), ("x", "y"), ("x",), 2),
             ((2, 1), ("x", "y"), ("x", "y"), 3), ((2, 1), ("x", "y"), (None, "x"), 2),
             ((4, 2), ("x", "y"), ("y", "x"), 2), ((4, 2), ("x", "y"), (("x", "y"),), 1),
             ((4, 2), ("x", "y"), ("y",), 2), ((2, 2, 2), ("a", "b", "c"), ("c", None, "a"), 3)]


def _hlo(h) -> dict:
    return {"replicated": h.is_replicated(), "tiled": h.is_tiled(),
            "dims": list(h.tile_assignment_dimensions()),
            "devices": list(h.tile_assignment_devices()) if h.is_tiled() else None,
            "subgroups": [str(t) for t in h.subgroup_types()]}


def _hlo_shardings(jax, out):
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    for shape, names, parts, ndim in HLO_CASES:
        mesh = jax.make_mesh(shape, names, devices=jax.devices()[:int(np.prod(shape))])
        sharding = NamedSharding(mesh, P(*parts))
        out[f"hlo {shape} {parts} rank {ndim}"] = _hlo(sharding._to_xla_hlo_sharding(ndim))


def _abstract_device(jax, out):
    AbstractMesh = jax.sharding.AbstractMesh
    mesh = jax.make_mesh((2, 2), ("x", "y"), devices=jax.devices()[:4])
    device = mesh.abstract_mesh.abstract_device
    out["abstract_device"] = repr(device)
    out["abstract_device_fields"] = [device.device_kind, device.num_cores, device.platform]
    out["abstract_device_of_sizes_only"] = repr(AbstractMesh((2,), ("x",)).abstract_device)
    again = AbstractMesh(mesh.axis_sizes, mesh.axis_names, axis_types=mesh.axis_types,
                         abstract_device=device)
    out["abstract_mesh_with_device"] = repr(again)
    out["abstract_mesh_with_device_equal"] = again == mesh.abstract_mesh
    out["abstract_mesh_with_device_hash_equal"] = hash(again) == hash(mesh.abstract_mesh)
    out["abstract_mesh_without_device_equal"] = AbstractMesh(
        mesh.axis_sizes, mesh.axis_names, axis_types=mesh.axis_types) == mesh.abstract_mesh


def _export_abstract_mesh(jax, out):
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    abstract = jax.sharding.AbstractMesh((2,), ("x",))
    out_sharding = NamedSharding(abstract, P(None, "x"))

    @jax.jit
    def f(a):
        return jax.lax.with_sharding_constraint(a @ a.T, out_sharding)

    exp = jax.export.export(f)(jax.ShapeDtypeStruct(
        (16, 16), np.float32, sharding=NamedSharding(abstract, P("x", None))))
    out["export_nr_devices"] = exp.nr_devices
    out["export_shardings_hlo"] = [repr(exp.in_shardings_hlo), repr(exp.out_shardings_hlo)]
    module = exp.mlir_module()
    out["export_module_mesh"] = "sdy.mesh @mesh = <[\"x\"=2]>" in module
    out["export_module_partitions"] = "mhlo.num_partitions = 2" in module
    run_mesh = jax.sharding.Mesh(jax.local_devices()[:2], ("x",))
    a = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    a = jax.device_put(a, NamedSharding(run_mesh, P("x", None)))
    res = exp.call(a)
    out["export_call_value_sum"] = float(np.asarray(res, np.float64).sum())   # exact integers
    out["export_call_equal_to_jit"] = bool(np.array_equal(np.asarray(res), np.asarray(f(a))))
    out["export_call_shards"] = [[[sl.start, sl.stop] for sl in s.index]
                                 for s in res.addressable_shards]


def _one_device_export_on_more(jax, out):
    """An export for one device (in_shardings over a mesh of one device) called with an
    argument split over all 8: JAX allows it (test_call_with_different_no_of_devices_...)."""
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    one = jax.sharding.Mesh(jax.local_devices()[:1], "i")

    @jax.jit
    def f(x):
        return (x ** 2).sum(axis=0)

    g = jax.jit(f, in_shardings=NamedSharding(one, P("i")))
    a = np.arange(8 * 10, dtype=np.float32).reshape(8, 10)
    exp = jax.export.export(g)(a)
    out["one_device_nr_devices"] = exp.nr_devices
    b = jax.device_put(a, NamedSharding(jax.sharding.Mesh(jax.local_devices(), "i"), P("i")))
    res = exp.call(b)
    out["one_device_call_value"] = np.asarray(res).tolist()     # exact: integer sums < 2**24
    out["one_device_call_shape"] = list(res.shape)


# (the caller's mesh axis, its devices reversed): JAX's test_with_sharding's program and two
# whose caller's mesh has the export's axes
MESH_NAME_CASES = [("y", True), ("x", True), ("x", False)]


def _mesh_names(jax, out):
    """An export over a mesh ("x"=2) called in a jit over another mesh: the module's meshes
    in printed order ([name, axes]) and the mesh each `sdy.sharding` and constraint names, in
    printed order (their attributes aside: JAX marks the export's mesh private)."""
    import re
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    devices = jax.devices()[:2]
    export_mesh = jax.sharding.Mesh(devices, ("x",))
    f = jax.jit(lambda b: b * 2., in_shardings=(NamedSharding(export_mesh, P("x", None)),),
                out_shardings=NamedSharding(export_mesh, P(None, "x")))
    a = np.arange(16 * 4, dtype=np.float32).reshape((16, 4))
    exp = jax.export.export(f)(a)
    for axis, reverse in MESH_NAME_CASES:
        run_mesh = jax.sharding.Mesh(devices[::-1] if reverse else devices, axis)
        a_device = jax.device_put(a, NamedSharding(run_mesh, P()))
        text = jax.jit(exp.call).lower(a_device).as_text()
        key = f"mesh_names {axis} reversed={reverse}"
        out[key + " declared"] = re.findall(r"sdy\.mesh @(\w+) = (<[^>]*>)", text)
        out[key + " used"] = re.findall(r"(?:sdy\.sharding<|sharding_constraint %\w+ <)@(\w+)",
                                        text)
        out[key + " value"] = np.asarray(exp.call(a_device)).tolist()      # exact: a * 2


def _shards(arr) -> list:
    """Per shard: its device's id, its index as [start, stop] per dimension, its data's sum
    (exact: integers below 2**24)."""
    return [[s.device.id, [[sl.start, sl.stop] for sl in s.index],
             float(np.asarray(s.data, np.float64).sum())] for s in arr.addressable_shards]


def _gspmd(jax, out):
    """JAX's test_gspmdshardings: arrays put on GSPMDShardings (replicated, split in 2) of 2
    devices, a jit given them as in_shardings and/or out_shardings, exported and called under
    set_mesh; and device_put to a tiling that orders the devices otherwise."""
    import importlib
    GSPMDSharding = importlib.import_module(jax.__name__ + "._src.sharding_impls").GSPMDSharding
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    devices = jax.devices()[:2]
    # (Auto axes, as JAX's test's jtu.create_mesh: under Explicit ones JAX types the call's
    # second result over the mesh by XLA's choice, f32[16@x,4], where jxkernel's is replicated)
    mesh = jax.make_mesh((2, 1), ("x", "y"), devices=devices,
                         axis_types=(jax.sharding.AxisType.Auto,) * 2)
    gs1 = GSPMDSharding(devices, NamedSharding(mesh, P(None))._to_xla_hlo_sharding(2))
    gs2 = GSPMDSharding(devices, NamedSharding(mesh, P("x"))._to_xla_hlo_sharding(2))
    x = jax.numpy.arange(16 * 4, dtype=np.float32).reshape((16, 4))
    x1, x2 = jax.device_put(x, gs1), jax.device_put(x, gs2)
    out["gspmd put"] = [_shards(x1), _shards(x2)]
    for has_in in (False, True):
        for has_out in (False, True):
            kwargs = dict([("in_shardings", (gs1, gs2))] * has_in +
                          [("out_shardings", (gs1, gs2))] * has_out)
            f = jax.jit(lambda a, b: (a, b), **kwargs)
            key = f"gspmd in={has_in} out={has_out}"
            out[key + " jit"] = [_shards(r) for r in f(x1, x2)]
            exp = jax.export.export(f)(x, x) if has_in else jax.export.export(f)(x1, x2)
            out[key + " export"] = [exp.nr_devices, repr(exp.in_shardings_hlo),
                                    repr(exp.out_shardings_hlo)]
            with jax.set_mesh(mesh):
                out[key + " call"] = [_shards(r) for r in exp.call(x, x)]
    swapped = jax.device_put(x, GSPMDSharding(devices, NamedSharding(
        jax.make_mesh((2,), ("x",), devices=devices[::-1]), P(None, "x"))._to_xla_hlo_sharding(2)))
    out["gspmd put devices reversed"] = _shards(swapped)
    # over 4 devices: a transposed tiling, and one replicated over its last tile dimension
    four = jax.make_mesh((2, 2), ("a", "b"), devices=jax.devices()[:4])
    for spec in (P("b", "a"), P("a"), P(None, ("b", "a"))):
        hlo = NamedSharding(four, spec)._to_xla_hlo_sharding(2)
        put = jax.device_put(x, GSPMDSharding(jax.devices()[:4], hlo))
        # (by device: JAX lists addressable shards in the GSPMDSharding's device order,
        # jxkernel in its mesh's, which for these tilings is another order)
        out[f"gspmd put 4 devices {spec}"] = sorted(_shards(put))


def _shard_map_symbolic(jax, out):
    """JAX's test_shard_map_collective_permute: a shard_map whose body permutes its block
    over a mesh of 2, exported with symbolic shapes (the split dimension's and the other's),
    then called on the mesh."""
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))

    def body(b):
        return jax.lax.ppermute(b, "x", perm=[(0, 1), (1, 0)])
    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P("x", None),), out_specs=P("x", None)),
                in_shardings=NamedSharding(mesh, P("x", None)),
                out_shardings=NamedSharding(mesh, P("x", None)))
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    for poly in ("2*b1,_", "_,b2", "2*b1,b2"):
        exp = jax.export.export(f)(*jax.export.symbolic_args_specs((a,), poly))
        res = exp.call(jax.device_put(a, NamedSharding(mesh, P())))
        out[f"shard_map symbolic {poly}"] = [str(exp.in_avals[0].shape),
                                             str(exp.out_avals[0].shape), exp.nr_devices,
                                             np.asarray(res).tolist()]


def run(jax) -> dict:
    out = {"device_count": len(jax.devices())}
    for case in (_hlo_shardings, _abstract_device, _export_abstract_mesh,
                 _one_device_export_on_more, _mesh_names, _gspmd, _shard_map_symbolic):
        case(jax, out)
    return out
