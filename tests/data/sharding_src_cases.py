"""The cases that reference/make_sharding_src_reference.py runs on JAX 0.10.2 and
tests/_jax/_src/test_src_sharding.py on jxkernel: what JAX's tests/array_test.py and
pjit_test.py read of `jax._src.op_shardings` (questions asked of XLA's HloSharding) and
`jax._src.sharding` (`common_devices_indices_map`'s cache). `run(jax)` takes the `jax` module
(real or jxkernel, with 8 CPU devices) and returns JSON data."""
import importlib

# HloShardings as XLA writes them: replicated, tiled, tiled with a replicated last tile
# dimension, with subgroups, and on one device
HLO_TEXTS = ("{replicated}", "{devices=[4,2]<=[8]}", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
             "{devices=[2,2,2]<=[8] last_tile_dims={replicated}}",
             "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}", "{maximal device=3}",
             "{devices=[1,1]<=[1]}", "{devices=[2,4]<=[4,2]T(1,0)}")


def _private(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _slices(index):
    return [[s.start, s.stop, s.step] for s in index]


def run(jax) -> dict:
    import numpy as np
    op = _private(jax, "op_shardings")
    xc = _private(jax, "lib").xla_client
    out = {}
    parsed = {text: xc.HloSharding.from_string(text) for text in HLO_TEXTS}
    for text, hs in parsed.items():
        if not hs.is_maximal():
            ways = op.get_num_ways_dim_sharded(hs)
            out[f"ways {text}"] = [list(ways[0]), ways[1]]
        out[f"replicated {text}"] = op.is_hlo_sharding_replicated(hs)
        if not hs.is_maximal() and not hs.is_replicated():
            n = hs.num_devices()
            shape = [8] * len(op.get_num_ways_dim_sharded(hs)[0])
            out[f"indices {text}"] = [_slices(i) for i in op.op_sharding_to_indices(hs, shape, n)]
        out[f"equal {text}"] = [op.are_hlo_shardings_equal(hs, other) for other in parsed.values()]
    out["indices {replicated}"] = [_slices(i) for i in
                                   op.op_sharding_to_indices(parsed["{replicated}"], (4, 2), 3)]

    # common_devices_indices_map: kept per sharding and shape, emptied by jax.clear_caches()
    sharding = _private(jax, "sharding")
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    jax.clear_caches()
    first = s.devices_indices_map((8, 2))
    info1 = sharding.common_devices_indices_map.cache_info()
    again = s.devices_indices_map((8, 2))
    info2 = sharding.common_devices_indices_map.cache_info()
    s.devices_indices_map((4, 2))
    info3 = sharding.common_devices_indices_map.cache_info()
    out["cache"] = {"currsize": [info1.currsize, info2.currsize, info3.currsize],
                    "hits": info2.hits - info1.hits, "misses": info3.misses - info2.misses,
                    "same_dict": first is again, "maxsize": info1.maxsize,
                    "indices": {str(d.id): _slices(i) for d, i in first.items()}}
    jax.clear_caches()
    out["cache_after_clear"] = sharding.common_devices_indices_map.cache_info().currsize
    out["indivisible_is_value_error"] = issubclass(sharding.IndivisibleError, ValueError)
    try:
        s.devices_indices_map((3, 2))
    except sharding.IndivisibleError as e:
        out["indivisible"] = str(e)
    out["sharding_abc"] = isinstance(s, sharding.Sharding)
    _unspecified(jax, out)
    _parse(jax, out)
    _assembly(jax, out)
    return out


def _answer(fn):
    """[error class, message] or ["ok", value]; a tracer's class named alike on both sides and
    jxkernel's note of the block's index after JAX's message left out."""
    import re
    try:
        return ["ok", repr(fn())]
    except Exception as e:      # noqa: BLE001  (the answer is the error)
        text = re.sub(r"<class '[\w.]*Tracer'>", "<tracer class>", str(e))
        return [type(e).__name__, text.split(" (data_callback(")[0]]


def _assembly(jax, out):
    """make_array_from_single_device_arrays' and make_array_from_callback's checks."""
    import numpy as np
    jnp = jax.numpy
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    make = jax.make_array_from_single_device_arrays
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    s = named(mesh, P("x", "y"))
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    arr = jax.device_put(np.arange(16).reshape(8, 2), one)
    x = jnp.arange(10)
    m2 = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    xs = jax.device_put(x, named(m2, P("x")))
    short = [jax.device_put(np.zeros((3,), np.int32), d) for d in m2.devices.flat]
    cases = {
        "no_arrays_no_dtype": lambda: make((8, 2), s, []),
        "no_arrays_with_dtype": lambda: make((8, 2), s, [], dtype=jnp.float32),
        "dtype_mismatch": lambda: make((8, 2), one, [arr], dtype=jnp.float32),
        "dtype_given": lambda: make((8, 2), one, [arr], dtype=arr.dtype).dtype,
        "traced_in_list": lambda: jax.jit(lambda y: make(y.shape, x.sharding, [y]))(x),
        "not_a_list": lambda: jax.jit(lambda y: make(y.shape, x.sharding, y))(x),
        "numpy_in_list": lambda: make((10,), x.sharding, [np.arange(10)]),
        "two_shards": lambda: make(xs.shape, xs.sharding, [xs, xs]),
        "shard_shape": lambda: make((10,), xs.sharding, short),
        "callback_shard_shape": lambda: jax.make_array_from_callback(
            (8, 4), s, lambda idx: np.arange(5)),
        "callback_replicated_shape": lambda: jax.make_array_from_callback(
            (8, 4), named(mesh, P()), lambda idx: np.arange(5.0)),
    }
    for name, fn in cases.items():
        out[f"assemble {name}"] = _answer(fn)
    _pinned_constraint(jax, out)
    _gspmd(jax, out)
    _device_of_split(jax, out)
    _jit_arguments(jax, out)
    _pjit_resource_mesh(jax, out)
    _array_private(jax, out)
    _mesh_and_spec_checks(jax, out)


def _mesh_and_spec_checks(jax, out):
    """Mesh, AbstractMesh, make_mesh and PartitionSpec: their argument errors, and P + P."""
    import numpy as np
    P, AxisType, AbstractMesh = (jax.sharding.PartitionSpec, jax.sharding.AxisType,
                                 jax.sharding.AbstractMesh)
    two = np.array(jax.devices()[:2])
    cases = {
        "mesh_none_name": lambda: jax.sharding.Mesh(jax.devices(), (None, "x")),
        "nested_tuple": lambda: P("x", "y", ("z", ("a",))),
        "nested_tuple_first": lambda: P((("a", "b"), "c")),
        "abstract_types_count": lambda: AbstractMesh((2, 1), ("x", "y"), axis_types=AxisType.Auto),
        "abstract_types_str": lambda: AbstractMesh((2,), ("x",), axis_types=("explicit",)),
        "abstract_types_one_str": lambda: AbstractMesh((2,), ("x",), axis_types="explicit"),
        "abstract_one_type": lambda: AbstractMesh((2,), "x", axis_types=AxisType.Auto),
        "mesh_types_count": lambda: jax.sharding.Mesh(two.reshape(2, 1), ("x", "y"),
                                                      axis_types=AxisType.Auto),
        "mesh_types_str": lambda: jax.sharding.Mesh(two, ("x",), axis_types=("explicit",)),
        "make_mesh_types_count": lambda: jax.make_mesh((1, 1), ("a", "b"),
                                                       axis_types=AxisType.Explicit),
        "make_mesh_not_ints": lambda: jax.make_mesh(((4,), 4), ("x", "y"),
                                                    axis_types=(AxisType.Auto,) * 2),
        "make_mesh_numpy_ints": lambda: jax.make_mesh((1, np.int32(1)), ("x", "y"),
                                                      axis_types=(AxisType.Explicit,) * 2),
        "p_add": lambda: P("x", unreduced={"z"}) + P("a", unreduced={"b"}) ==
        P("x", "a", unreduced={"z", "b"}),
        "p_add_plain": lambda: P("x") + P("a", None),
        "p_add_tuple": lambda: P("x") + ("a",),
        "tuple_add_p": lambda: ("a",) + P("x"),
        "abstract_update": lambda: AbstractMesh((2, 4), ("x", "y")).update(
            axis_sizes=(4, 2), axis_names=("a", "b")),
        "abstract_update_types": lambda: AbstractMesh((2, 4), ("x", "y")).update(
            axis_types=(AxisType.Explicit, AxisType.Auto)),
        "abstract_update_device_kept": lambda: jax.sharding.Mesh(two, ("x",)).abstract_mesh.update(
            axis_names=("z",)),
        "abstract_update_axis_types": lambda: AbstractMesh(
            (2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto)).update_axis_types(
            {"x": AxisType.Auto, "y": AxisType.Explicit, "w": AxisType.Auto}),
    }
    for name, fn in cases.items():
        out[f"mesh check {name}"] = _answer(fn)


def _array_private(jax, out):
    """JAX's private Array names its tests read: `_npy_value` (None before the host copy is
    read), `_check_if_deleted`, `_fully_replicated_shard`."""
    import numpy as np
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    x = jax.device_put(np.arange(8.0), named(mesh, P()))
    before = x._npy_value is None
    shard = x._fully_replicated_shard()
    out["array _npy_value"] = before
    out["array _fully_replicated_shard"] = [list(shard.shape), len(shard.devices()),
                                            shard.tolist()]
    x.delete()
    kind, text = _answer(x._check_if_deleted)
    out["array _check_if_deleted"] = [kind, text.split(".")[0]]


def _pjit_resource_mesh(jax, out):
    """jax._src.pjit.pjit: a None sharding means P() over the mesh of the `with mesh:` block
    it is called in; jit's None, set_mesh's, and a call outside the block: unspecified."""
    import warnings

    import numpy as np
    warnings.simplefilter("ignore", DeprecationWarning)     # (`with mesh:`)
    pjit = _private(jax, "pjit").pjit
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    x = jax.device_put(np.arange(8.0), named(mesh, P("x")))
    specs = {}
    with jax.set_mesh(mesh):
        specs["set_mesh pjit None"] = pjit(lambda a: a * 2, out_shardings=None)(x)
        specs["set_mesh jit None"] = jax.jit(lambda a: a * 2, out_shardings=None)(x)
    with mesh:
        specs["with mesh pjit None"] = pjit(lambda a: a * 2, out_shardings=None)(x)
        specs["with mesh pjit default"] = pjit(lambda a: a * 2)(x)
        specs["with mesh jit None"] = jax.jit(lambda a: a * 2, out_shardings=None)(x)
        g = pjit(lambda a, b: a + b, in_shardings=(P("x"), None), out_shardings=P("x"))
        specs["with mesh pjit in None"] = g(x, np.arange(8.0))
        out["pjit with mesh in None, committed P('x')"] = _answer(lambda: g(x, x))
        # a sharding that cannot split the argument: that error first, as JAX's
        y = jax.device_put(np.arange(3.0), named(mesh, P()))
        out["pjit with mesh, indivisible and committed otherwise"] = _answer(
            lambda: pjit(lambda a: a, in_shardings=P("x"))(y))
        f = pjit(lambda a: a * 2, out_shardings=None)
    specs["made in mesh called outside"] = f(x)
    for name, y in specs.items():
        out[f"pjit {name}"] = [repr(y.sharding.spec), y.tolist()]


def _jit_arguments(jax, out):
    """jit's checks of device=, backend= and shardings together, of keyword arguments with
    in_shardings; a ShapeDtypeStruct's sharding of too high a rank."""
    import warnings

    import numpy as np
    warnings.simplefilter("ignore", DeprecationWarning)     # (JAX's backend= and device=)
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    d0 = jax.devices()[0]
    one = jax.sharding.SingleDeviceSharding(d0)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    cases = {
        "device_and_backend": lambda: jax.jit(lambda x: x, device=d0, backend="cpu"),
        "backend_and_in_shardings": lambda: jax.jit(lambda x: x, in_shardings=one, backend="cpu"),
        "device_and_out_shardings": lambda: jax.jit(lambda x: x, out_shardings=one, device=d0),
        "device_and_none": lambda: jax.jit(lambda x: x * 2, in_shardings=None, device=d0)(1.0),
        "kwargs_with_in_shardings": lambda: jax.jit(lambda x: x, in_shardings=one)(
            x=jax.numpy.arange(3.0)),
        "sds_rank": lambda: jax.ShapeDtypeStruct((4, 4), np.float32,
                                                 sharding=named(mesh, P(None, "x", None))),
    }
    for name, fn in cases.items():
        out[f"jit arguments {name}"] = _answer(fn)


def _device_of_split(jax, out):
    """`x.device` of an array over several devices: its sharding; `to_device` of one."""
    import numpy as np
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    s = named(mesh, P("x"))
    x = jax.device_put(jax.numpy.ones((2, 10)), s)
    y = jax.numpy.ones((2, 10)).to_device(s)
    r = jax.device_put(jax.numpy.ones((2, 10)), named(mesh, P()))
    one = jax.numpy.ones(3)
    out["device of split"] = [repr(x.device), x.device == s, repr(y.device), repr(r.device),
                              one.device == jax.devices()[0]]


def _gspmd(jax, out):
    """GSPMDSharding: made of an OpSharding, its repr, each device's index, its shard shape,
    which shardings it is equivalent to."""
    import numpy as np
    impls = _private(jax, "sharding_impls")
    xc = _private(jax, "lib").xla_client
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    op = xc.OpSharding()
    op.type = xc.OpSharding.Type.OTHER
    op.tile_assignment_dimensions = [4, 1, 2]
    op.tile_assignment_devices = list(range(8))
    op.replicate_on_last_tile_dim = True
    from_op = impls.GSPMDSharding(jax.devices(), op)
    out["gspmd repr"] = repr(from_op)
    out["gspmd shard_shape"] = list(from_op.shard_shape((8, 4)))
    out["gspmd replicated"] = [from_op.is_fully_replicated,
                               impls.GSPMDSharding.get_replicated(jax.devices()).is_fully_replicated]
    for spec in (P("x", "y"), P("y"), P(("x", "y")), P()):
        s = named(mesh, spec)
        g = impls.GSPMDSharding(list(mesh.devices.flat), s._to_xla_hlo_sharding(2))
        out[f"gspmd indices {spec}"] = {str(d.id): _slices(i)
                                        for d, i in g.devices_indices_map((8, 4)).items()}
        out[f"gspmd indices {spec} same"] = g.devices_indices_map((8, 4)) == \
            s.devices_indices_map((8, 4))
        out[f"gspmd equivalent {spec}"] = [g.is_equivalent_to(s, 2), s.is_equivalent_to(g, 2),
                                           g.is_equivalent_to(named(mesh, P("x")), 2)]
    out["gspmd indivisible"] = _answer(lambda: impls.GSPMDSharding(
        jax.devices(), xc.HloSharding.from_string(
            "{devices=[4,1,2]<=[8] last_tile_dim_replicate}")).shard_shape((6, 4)))


def _pinned_constraint(jax, out):
    """A sharding constraint over a mesh inside jit(device=): JAX's error (its text up to where
    JAX names the source line and jxkernel the function)."""
    import re

    import numpy as np
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))

    def zeros(shape, spec):
        return jax.lax.with_sharding_constraint(jax.numpy.zeros(shape), named(mesh, spec))
    f = jax.jit(zeros, static_argnums=(0, 1), device=jax.devices()[0])
    kind, text = _answer(lambda: f((8, 4), P("x", "y")))
    out["pinned_constraint"] = [kind, re.split(r" at | \(", text)[0]]


# (text, mesh axis sizes, names): HloShardings over a mesh's places, for parse_flatten_op_sharding
PARSED = (("{devices=[4,2]<=[2,4]T(1,0)}", (2, 4), ("x", "y")),
          ("{devices=[8,1]<=[8]}", (2, 4), ("x", "y")),
          ("{devices=[2,1,4]<=[8] last_tile_dim_replicate}", (2, 4), ("x", "y")),
          ("{replicated}", (2, 4), ("x", "y")),
          ("{devices=[4,6]<=[2,3,4]T(2,0,1)}", (2, 3, 4), ("a", "b", "c")),
          ("{devices=[1,6,4]<=[2,3,4]T(0,1,2)}", (2, 3, 4), ("a", "b", "c")))


def _parse(jax, out):
    impls = _private(jax, "sharding_impls")
    xc = _private(jax, "lib").xla_client
    for text, sizes, names in PARSED:
        specs = impls.parse_flatten_op_sharding(xc.HloSharding.from_string(text),
                                                jax.sharding.AbstractMesh(sizes, names))
        out[f"parse {text} {sizes}"] = [repr(p) for p in specs]


def _unspecified(jax, out):
    """UNSPECIFIED in jit's in_shardings and out_shardings: no sharding given, as None."""
    import numpy as np
    impls = _private(jax, "sharding_impls")
    named, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    x = np.arange(16).reshape(8, 2)
    s, s2 = named(mesh, P("x", "y")), named(mesh, P("x"))
    a, a2 = jax.device_put(x, s), jax.device_put(x, s2)
    f = jax.jit(lambda p, q, r, t, u: (p * 2, q @ q.T, r ** 2, t * 3, u.T),
                in_shardings=(s, None, s2, impls.UNSPECIFIED, impls.UNSPECIFIED),
                out_shardings=(s2, None, None, s, None))
    outs = f(a, x, a2, x, a)
    out["unspecified_repr"] = repr(impls.UNSPECIFIED)
    out["unspecified_specs"] = [repr(o.sharding.spec) for o in outs]
    out["unspecified_values"] = [o.tolist() for o in outs]
    whole = jax.jit(lambda v: v + 1, in_shardings=impls.UNSPECIFIED,
                    out_shardings=impls.UNSPECIFIED)(a)
    out["unspecified_whole"] = [repr(whole.sharding.spec), whole.tolist()]
