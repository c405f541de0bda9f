"""The cases that reference/make_pjit_array_reference.py runs on JAX 0.10.2 and
tests/sharding/test_pjit_array.py on jxkernel: what JAX's tests/pjit_test.py and
tests/array_test.py check of meshes, PartitionSpecs, shardings and sharded arrays that a learner
meets (a spec or mesh made twice being one object, the errors of a sharding that does not fit a
value). `run(jax)` takes the `jax` module (real or jxkernel, with 8 CPU devices) and returns
JSON data."""


import math

from case_answer import answer as _answer


def run(jax) -> dict:
    out = {}
    _identity(jax, out)
    _named_sharding_errors(jax, out)
    _reordered_meshes(jax, out)
    _device_mismatches(jax, out)
    _shape_dtype_struct_specs(jax, out)
    _constraint_errors(jax, out)
    _compile_device_assignment(jax, out)
    _spec_errors(jax, out)
    _unreduced_display(jax, out)
    _deleted(jax, out)
    _mesh_contexts(jax, out)
    _jit_option_errors(jax, out)
    _typed_selects(jax, out)
    _size_one_constraints(jax, out)
    _array_mappings(jax, out)
    _array_to_device(jax, out)
    _small_array_test_items(jax, out)
    _aval_shardings(jax, out)
    _sdy_shardings(jax, out)
    _top_level_gathers(jax, out)
    _array_impl_constructor(jax, out)
    _segment_out_shardings(jax, out)
    _mesh_context_names(jax, out)
    _reshard_keys(jax, out)
    _padded_aval_specs(jax, out)
    _eqn_context_meshes(jax, out)
    _converted_to_shardings(jax, out)
    _sds_like_shardings(jax, out)
    _typed_broadcasts_and_edtypes(jax, out)
    _unit_dim_transposes(jax, out)
    _size_one_explicit_results(jax, out)
    _one_device_types(jax, out)
    _reshard_params(jax, out)
    _constraint_params(jax, out)
    _operand_constraints(jax, out)
    _inline_and_const_results(jax, out)
    _pjit_in_mesh_block(jax, out)
    _type_divisibility(jax, out)
    _eager_one_device_constraints(jax, out)
    _scatter_python_bools(jax, out)
    _key_shardings(jax, out)
    _open_result_names(jax, out)
    _placement_errors(jax, out)
    _donations_over_meshes(jax, out)
    _all_none_shardings(jax, out)
    _cotangent_types(jax, out)
    _host_local_and_no_op_conversions(jax, out)
    _vmapped_and_transposed_types(jax, out)
    _linalg_types(jax, out)
    _out_sharding_meshes(jax, out)
    _sampler_out_shardings(jax, out)
    _abstract_mesh_lowering(jax, out)
    _small_api_answers(jax, out)
    _auto_axes_cotangents(jax, out)
    _eager_context_answers(jax, out)
    _auto_axes_reshards(jax, out)
    return out


def _identity(jax, out):
    """P and Mesh are interned: made twice (or unpickled, copied) they are one object; P
    refuses subclasses."""
    import copy
    import pickle
    P, Mesh = jax.sharding.PartitionSpec, jax.sharding.Mesh
    out["P none is P empty tuple"] = _answer(lambda: P(None, "x") is P((), "x"))
    out["P tuple of one is P name"] = _answer(lambda: P(("x",), None) is P("x", None))
    out["P unreduced twice"] = _answer(lambda: P("x", unreduced={"y"}) is P("x", unreduced={"y"}))
    out["P pickled"] = _answer(lambda: pickle.loads(pickle.dumps(P("x", None))) is P("x", None))
    out["P deepcopy"] = _answer(lambda: copy.deepcopy(P("x")) is P("x"))
    out["P setattr"] = _answer(lambda: setattr(P("x"), "unreduced", frozenset({"y"})))

    def subclass():
        class MyP(P):
            pass
    out["P subclass"] = _answer(subclass)
    devs = jax.devices()
    out["Mesh twice"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs, "x"))
    out["Mesh other names"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs, "y"))
    out["Mesh other order"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs[::-1], "x"))
    out["Mesh deepcopy"] = _answer(lambda: copy.deepcopy(Mesh(devs, "x")) is Mesh(devs, "x"))
    out["Mesh devices read-only"] = _answer(lambda: Mesh(devs, "x").devices.flags.writeable)


def _named_sharding_errors(jax, out):
    """NamedSharding's checks: a spec longer than the value's rank (a scalar's hint), unreduced
    axes the mesh lacks or that are not Explicit, a memory kind over an AbstractMesh."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    AxisType, AbstractMesh = jax.sharding.AxisType, jax.sharding.AbstractMesh
    mesh = jax.make_mesh((2, 2, 2), ("x", "y", "z"), axis_types=(AxisType.Auto,) * 3)
    s = NamedSharding(mesh, P("x"))
    out["check_compatible_aval scalar"] = _answer(lambda: s.check_compatible_aval(()))
    out["check_compatible_aval rank"] = _answer(
        lambda: NamedSharding(mesh, P("x", "y")).check_compatible_aval((4,)))
    out["check_compatible_aval ok"] = _answer(lambda: s.check_compatible_aval((4,)))
    out["device_put scalar"] = _answer(lambda: jax.device_put(np.float32(1), s).tolist())
    out["jit in_shardings scalar"] = _answer(
        lambda: jax.jit(lambda v: v, in_shardings=s)(np.float32(1)).tolist())
    out["unreduced not in mesh"] = _answer(lambda: repr(NamedSharding(mesh, P("x", unreduced={"a"}))))
    out["unreduced auto axes"] = _answer(lambda: repr(NamedSharding(mesh, P("x", unreduced={"y"}))))
    out["reduced not in mesh"] = _answer(lambda: repr(NamedSharding(mesh, P(reduced={"a"}))))
    explicit = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto),
                             devices=jax.devices()[:4])
    out["reduced auto axis"] = _answer(lambda: repr(NamedSharding(explicit, P(reduced={"y"}))))
    out["unreduced explicit axis"] = _answer(
        lambda: repr(NamedSharding(explicit, P(unreduced={"x"}))))
    abstract = AbstractMesh((2,), ("x",))
    out["abstract pinned_host"] = _answer(
        lambda: NamedSharding(abstract, P(), memory_kind="pinned_host").memory_kind)
    out["abstract no kind"] = _answer(lambda: NamedSharding(abstract, P()).memory_kind)
    out["abstract weird kind"] = _answer(
        lambda: NamedSharding(abstract, P(), memory_kind="weird_device").memory_kind)


def _reordered_meshes(jax, out):
    """device_put between meshes of the same devices in another order moves the blocks
    between devices (no host transfer: allowed under transfer_guard('disallow_explicit'));
    a jit whose argument and out_shardings order the devices differently is refused."""
    import math
    import numpy as np
    P, NamedSharding, Mesh = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.Mesh
    dev = jax.devices()
    mesh1 = Mesh(np.array(dev[:4]).reshape(2, 2), ("x", "y"))
    mesh2 = Mesh(np.array(dev[3::-1]).reshape(2, 2), ("x", "y"))
    value = np.arange(16).reshape(8, 2)
    x = jax.device_put(value, NamedSharding(mesh1, P("x", "y")))

    def put(x, s):
        with jax.transfer_guard("disallow_explicit"):
            y = jax.device_put(x, s)
        return [y.tolist(), y.sharding == s,
                [[d.id, str(i)] for d, i in sorted(((sh.device, sh.index) for sh in
                                                   y.addressable_shards), key=lambda t: t[0].id)]]
    for name, spec in [("P(x)", P("x")), ("P(y, x)", P("y", "x")), ("P()", P())]:
        out[f"reordered put {name}"] = _answer(lambda spec=spec: put(x, NamedSharding(mesh2, spec)))
    big1 = Mesh(np.asarray(dev).reshape([1, 2, 2, 2]), ("replica", "data", "seq", "model"))
    big2 = Mesh(np.asarray(dev).reshape([1, 1, 2, 2, 2, 1]).swapaxes(2, 3).reshape([1, 1, 4, 2, 1]),
                ("replica", "data", "seq", "model_q", "model_kv"))
    for shape in [(8, 2), (8, 6)]:
        v = np.arange(math.prod(shape)).reshape(shape)
        y = jax.device_put(v, NamedSharding(big1, P("model")))
        out[f"reordered put complex {shape}"] = _answer(
            lambda y=y: put(y, NamedSharding(big2, P())))
        z = jax.device_put(v, NamedSharding(big2, P("model_q")))
        out[f"reordered put complex back {shape}"] = _answer(
            lambda z=z: put(z, NamedSharding(big1, P("model"))))
    out["reordered jit out_shardings"] = _answer(lambda: jax.jit(
        lambda v: v * 2, out_shardings=NamedSharding(mesh2, P("x")))(x).tolist())
    out["other devices jit in_shardings"] = _answer(lambda: jax.jit(
        lambda v: v * 2, in_shardings=NamedSharding(
            Mesh(np.array(dev[4:]).reshape(2, 2), ("x", "y")), P("x")))(x).tolist())


def _device_mismatches(jax, out):
    """JAX's "Received incompatible devices" where a pjit's committed argument lies off the
    `with mesh:` block's devices, and where an eager with_sharding_constraint names the
    array's devices in another order."""
    import importlib
    import warnings
    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pjit = importlib.import_module(f"{jax.experimental.__name__}.pjit").pjit
    P, NamedSharding, Mesh = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.Mesh
    dev = jax.devices()
    m8 = Mesh(np.array(dev).reshape(4, 2), ("x", "y"))
    m4 = Mesh(np.array(dev[:4]).reshape(2, 2), ("x", "y"))
    x4 = jax.device_put(np.arange(16.).reshape(8, 2), NamedSharding(m4, P("x", "y")))
    x8 = jax.device_put(np.arange(16.).reshape(8, 2), NamedSharding(m8, P("x", "y")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # `with mesh:`
        with m8:
            out["pjit arg off the mesh"] = _answer(lambda: pjit(lambda x: x)(x4).tolist())
        with m4:
            out["pjit arg on more devices"] = _answer(
                lambda: pjit(lambda a, b: a + b)(np.ones((8, 2)), x8).tolist())
        with m8:
            out["pjit arg on the mesh"] = _answer(lambda: pjit(lambda x: x * 2)(x8).tolist())
    m2 = Mesh(np.array(dev[:2]), "x")
    m2r = Mesh(np.array([dev[1], dev[0]]), "x")
    inp = jax.device_put(np.arange(8), NamedSharding(m2, P()))
    out["wsc eager reordered devices"] = _answer(lambda: jax.lax.with_sharding_constraint(
        inp, NamedSharding(m2r, P("x"))).tolist())


def _shape_dtype_struct_specs(jax, out):
    """A ShapeDtypeStruct given a bare P: its sharding is read over set_mesh's mesh when
    asked (JAX's TypeError without one, its ValueError for an axis the mesh lacks); the rank
    checks of a P and of a sharding; lowering and running a jit of one."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    sds = jax.ShapeDtypeStruct((2, 2), np.float32, sharding=P("x"))
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))
    with jax.set_mesh(mesh):
        out["sds P under set_mesh"] = _answer(lambda: repr(sds.sharding))
        out["sds P jit"] = _answer(lambda: [
            "num_partitions = 2" in jax.jit(lambda v: v * 2).lower(sds).as_text(),
            repr(jax.jit(lambda v: v * 2).lower(sds).compile()(
                jax.device_put(np.arange(4.).reshape(2, 2), P("x"))).sharding)])
    out["sds P no mesh"] = _answer(lambda: repr(sds.sharding))
    other = jax.make_mesh((2,), ("y",), devices=jax.devices()[:2],
                          axis_types=(jax.sharding.AxisType.Auto,))
    with jax.set_mesh(other):
        out["sds P other axis"] = _answer(lambda: repr(sds.sharding))
    out["sds P rank"] = _answer(lambda: repr(jax.ShapeDtypeStruct(
        (128, 128), np.float32, sharding=P(None, "x", None))))
    out["sds P scalar"] = _answer(lambda: repr(jax.ShapeDtypeStruct((), np.float32,
                                                                   sharding=P("x"))))
    out["sds sharding rank"] = _answer(lambda: repr(jax.ShapeDtypeStruct(
        (128, 128), np.float32, sharding=NamedSharding(mesh, P(None, "x", None)))))
    out["sds not a sharding"] = _answer(lambda: repr(jax.ShapeDtypeStruct(
        (2,), np.float32, sharding="x")))
    empty = NamedSharding(jax.sharding.get_mesh(), P())      # (the empty mesh: none set)
    out["empty mesh sharding"] = _answer(lambda: [repr(empty), empty.memory_kind])
    out["jit out_shardings empty mesh"] = _answer(lambda: jax.jit(
        lambda v: v, out_shardings=empty)(np.ones((4,))).tolist())
    out["sds update keeps P"] = _answer(lambda: repr(sds.update(shape=(4, 2))._sharding))


def _constraint_errors(jax, out):
    """with_sharding_constraint given None (JAX's error with no mesh; P() under `with mesh:`)
    or a sharding of a higher rank than its value."""
    import warnings
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    wsc = jax.lax.with_sharding_constraint
    out["wsc None"] = _answer(lambda: wsc(jax.numpy.arange(8), None).tolist())
    mesh = jax.make_mesh((1, 2), ("data", "mdl"), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,) * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # `with mesh:`
        with mesh:
            out["wsc None under with mesh"] = _answer(
                lambda: repr(wsc(jax.numpy.arange(4.), None).sharding))
    s = NamedSharding(mesh, P("mdl", None))
    out["wsc rank eager"] = _answer(lambda: wsc(jax.numpy.arange(4.), s).tolist())
    out["wsc rank in jit"] = _answer(lambda: jax.jit(lambda v: wsc(v, s))(np.arange(4.)).tolist())


def _compile_device_assignment(jax, out):
    """Lowered.compile(device_assignment=...): the program's own devices (its mesh's, in
    order, or its one device) compile; others are JAX's ValueError."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    d = jax.devices()
    f = jax.jit(lambda x: x * 2)
    out["compile own device"] = _answer(lambda: [dv.id for dv in f.lower(np.arange(4.)).compile(
        device_assignment=(d[0],))(np.arange(4.)).devices()])
    out["compile other device"] = _answer(
        lambda: f.lower(np.arange(4.)).compile(device_assignment=(d[1],)) is None)
    out["compile committed elsewhere"] = _answer(lambda: f.lower(
        jax.device_put(np.arange(4.), d[2])).compile(device_assignment=(d[1],)) is None)
    mesh = jax.make_mesh((2,), ("x",), devices=d[:2], axis_types=(jax.sharding.AxisType.Auto,))
    s = NamedSharding(mesh, P("x"))
    sds = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=s)
    out["compile mesh one device"] = _answer(
        lambda: f.lower(sds).compile(device_assignment=(d[0],)) is None)
    out["compile mesh reordered"] = _answer(
        lambda: f.lower(sds).compile(device_assignment=(d[1], d[0])) is None)
    out["compile mesh own devices"] = _answer(lambda: repr(f.lower(sds).compile(
        device_assignment=(d[0], d[1]))(jax.device_put(np.ones((8, 2), np.float32), s)).sharding))


def _spec_errors(jax, out):
    """A spec naming one axis twice, in jit's or pjit's shardings (named so) or a
    NamedSharding; a NamedSharding of None; pjit's shardings given by position."""
    import importlib
    import warnings
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pjit = importlib.import_module(f"{jax.experimental.__name__}.pjit").pjit
    mesh = jax.make_mesh((2, 2), ("x", "y"), devices=jax.devices()[:4],
                         axis_types=(jax.sharding.AxisType.Auto,) * 2)
    out["jit in_shardings x twice"] = _answer(
        lambda: jax.jit(lambda v: v, in_shardings=P("x", "x")) is None)
    out["pjit out_shardings twice"] = _answer(
        lambda: pjit(lambda v: v, out_shardings=(P(("x", "y"), "y", "x"),)) is None)
    out["NamedSharding twice"] = _answer(lambda: repr(NamedSharding(mesh, P("y", ("x", "y")))))

    def of_none():       # (the class and JAX's leading words: the rest is its binding's)
        try:
            NamedSharding(mesh, None)
        except TypeError as e:
            return str(e).startswith("__init__(): incompatible function arguments.")
    out["NamedSharding of None"] = _answer(of_none)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with mesh:
            out["pjit positional shardings"] = _answer(lambda: repr(pjit(
                lambda v: v * 2, P("x"), P("y"))(np.arange(4.)).sharding))


def _unreduced_display(jax, out):
    """An Array typed unreduced (each device a summand) prints as its shape, dtype and
    sharding, never one device's summand as its value; reading its value is refused."""
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(AxisType.Explicit,))
    with jax.set_mesh(mesh):
        x = jax.device_put(jax.numpy.arange(8., dtype="float32"), P("x"))
        y = jax.lax.reduce_sum(x, [0], out_sharding=P(unreduced={"x"}))
        out["unreduced str"] = _answer(lambda: str(y))
        out["unreduced repr"] = _answer(lambda: repr(y))
        out["unreduced format"] = _answer(lambda: f"{y:.1f}")
        out["unreduced tolist"] = _answer(lambda: type(y.tolist()).__name__)[:1]
        out["unreduced resharded"] = _answer(lambda: jax.sharding.reshard(y, P()).tolist())


def _deleted(jax, out):
    """A deleted Array's private per-device list and host copy are None (JAX's), on one
    device and over a mesh; reading it says it was deleted."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    for name, x in [("one device", jax.device_put(np.array([1, 2, 3]), jax.devices()[0])),
                    ("mesh", jax.device_put(np.arange(16).reshape(8, 2),
                                            NamedSharding(mesh, P("x", "y"))))]:
        before = len(x._arrays)
        x.delete()
        out[f"deleted {name}"] = _answer(lambda x=x, before=before: [
            before, x._arrays is None, x._npy_value is None, x.is_deleted()])

        def read(x=x):       # (JAX's words lead; jxkernel then says how it came to be deleted)
            try:
                x._check_if_deleted()
            except RuntimeError as e:
                return str(e).split(" .delete() was called")[0]
        out[f"deleted {name} read"] = _answer(read)


def _mesh_contexts(jax, out):
    """`jax._src.mesh.thread_resources.env.physical_mesh`: the mesh of the innermost `with
    mesh:` block (EMPTY_ENV's outside any), and a Mesh used as a decorator."""
    import importlib
    import warnings
    import numpy as np
    mesh_lib = importlib.import_module(jax.__name__ + "._src.mesh")
    devs = np.array(jax.devices()[:4])
    m1 = jax.sharding.Mesh(devs[:2].reshape(2, 1), ("x", "y"))
    m2 = jax.sharding.Mesh(devs.reshape(2, 2), ("a", "b"))

    def nested():
        env = lambda: mesh_lib.thread_resources.env.physical_mesh      # noqa: E731
        seen = [env() == mesh_lib.EMPTY_ENV.physical_mesh]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with m1:
                with m2:
                    seen += [env() == m2, env().axis_names]
                seen += [env() == m1, env().axis_names]
                with m1:
                    seen.append(env() == m1)
        seen.append(env() == mesh_lib.EMPTY_ENV.physical_mesh)
        return seen
    out["thread_resources nested"] = _answer(nested)
    out["thread_resources repr"] = _answer(lambda: repr(mesh_lib.EMPTY_ENV))

    def decorated():
        P = jax.sharding.PartitionSpec
        pjit = importlib.import_module(jax.__name__ + ".experimental.pjit").pjit

        @m2
        def dec(v):
            return [mesh_lib.thread_resources.env.physical_mesh == m2,
                    pjit(lambda u: u * 2, in_shardings=P("a"), out_shardings=None)(v).tolist()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            got = dec(np.arange(4))
        return got + [dec.__name__,
                      mesh_lib.thread_resources.env.physical_mesh == mesh_lib.EMPTY_ENV.physical_mesh]
    out["mesh decorator"] = _answer(decorated)


def _jit_option_errors(jax, out):
    """`compiler_options` on a jit staged into another's trace (JAX's ValueError; under jvp
    and vmap it runs; JAX's grad refuses it too, jxkernel's runs it: not recorded), and a
    `device=` pjit in a `with mesh:` block (jit's runs)."""
    import importlib
    import warnings
    import numpy as np
    jnp = jax.numpy

    def head(e):                  # (the message up to the caller's place, which differs)
        return str(e).split(" and source info")[0]

    def answer(f):
        try:
            return ["ok", np.asarray(f()).tolist()]
        except ValueError as e:
            return [type(e).__name__, head(e)]
    g = jax.jit(lambda x: x * 2, compiler_options={"invalid_key": "invalid_value"})
    out["compiler_options nested"] = answer(lambda: jax.jit(lambda x: g(x + 2))(jnp.arange(4)))
    g2 = jax.jit(lambda x: x * 2, compiler_options={"xla_embed_ir_in_executable": True})
    x = jnp.arange(4.0)
    out["compiler_options jvp"] = answer(lambda: jax.jvp(g2, (x,), (jnp.ones(4),))[1])
    out["compiler_options vmap"] = answer(lambda: jax.vmap(g2)(x))
    out["compiler_options make_jaxpr"] = answer(lambda: len(jax.make_jaxpr(g2)(1.0).eqns))
    out["compiler_options top"] = answer(lambda: g2(x))
    pjit = importlib.import_module(jax.__name__ + ".experimental.pjit").pjit
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("x",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with mesh:
            out["pjit device in mesh"] = answer(
                lambda: pjit(lambda v: v, device=jax.devices()[0])(jnp.arange(8)))
            out["jit device in mesh"] = answer(
                lambda: jax.jit(lambda v: v + 1, device=jax.devices()[0])(jnp.arange(3)))
        out["pjit device outside"] = answer(
            lambda: pjit(lambda v: v, device=jax.devices()[1])(jnp.arange(3)))


def _typed_selects(jax, out):
    """Over Explicit axes, the values a rule selects between are typed alike: vmapped
    scatter-min/max and dynamic_update_slice_in_dim differentiated (their masks, zeros and
    index columns split as the batch), jnp.triu/tril of a split array (the mask and zeros
    split as it)."""
    import numpy as np
    jnp = jax.numpy
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    fns = {"min": lambda x, ind, y: x.at[ind].min(y),
           "max": lambda x, ind, y: x.at[ind].max(y),
           "dus": lambda x, ind, y: jax.lax.dynamic_update_slice_in_dim(x, y[None], ind, axis=0)}
    with jax.set_mesh(mesh):
        for spec_name, operand_spec, update_spec in (("xy", P("x", None, "y"), P("x", "y")),
                                                     ("x", P("x", None, None), P("x", None))):
            for op_name, fn in fns.items():
                def case(fn=fn, operand_spec=operand_spec, update_spec=update_spec):
                    operand = jax.device_put(jnp.arange(160.0).reshape(2, 10, 8),
                                             NamedSharding(mesh, operand_spec))
                    indices = jax.device_put(jnp.array([2, 3], dtype=jnp.int32),
                                             NamedSharding(mesh, P("x")))
                    updates = jax.device_put(jnp.full((2, 8), 20.0),
                                             NamedSharding(mesh, update_spec))
                    f = jax.jit(jax.vmap(fn))
                    y = f(operand, indices, updates)
                    gs = jax.grad(lambda *a: f(*a).sum(), argnums=(0, 2))(operand, indices,
                                                                         updates)
                    return [str(y.sharding.spec), np.asarray(y).sum().item()] + \
                        [[str(g.sharding.spec), np.asarray(g).tolist()] for g in gs]
                out[f"typed select {op_name} {spec_name}"] = _answer(case)
        for shape, spec in [((8, 8), P("x")), ((8, 8, 4), P(None, "x", None)),
                            ((8, 8, 4), P("x"))]:
            def tri(shape=shape, spec=spec):
                one = jnp.ones(shape, out_sharding=spec)
                lo, up = jnp.tril(one, 3), jnp.triu(one, -3)
                return [str(lo.sharding.spec), str(up.sharding.spec),
                        np.asarray(lo).sum().item(), np.asarray(up).sum().item()]
            out[f"typed select tri {shape} {spec}"] = _answer(tri)
        out["typed select tri unsplit jaxpr"] = _answer(
            lambda: str(jax.make_jaxpr(lambda v: jnp.triu(v, 1))(jnp.ones((4, 4)))))
    out["typed select tri no mesh"] = _answer(lambda: [
        jnp.triu(jnp.ones((3, 3)), 1).tolist(), jnp.tril(jnp.ones((2, 3, 3)))[1].tolist(),
        str(jax.make_jaxpr(lambda v: jnp.tril(v))(jnp.ones((2, 2))))])


def _size_one_constraints(jax, out):
    """Under jax_remove_size_one_mesh_axis_from_type, with_sharding_constraint over Explicit
    axes (an assert of the type) compares the spec less its mesh's axes of size 1."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    wsc = jax.lax.with_sharding_constraint
    jax.config.update("jax_remove_size_one_mesh_axis_from_type", True)
    try:
        mesh = jax.make_mesh((2, 1), ("x", "y"),
                             axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(mesh):
            for arr_spec in [P("x", "y"), P(("x", "y")), P("y"), P(None, "x")]:
                def case(arr_spec=arr_spec):
                    arr = jax.device_put(np.arange(16).reshape(8, 2), arr_spec)
                    seen = []

                    def f(x):
                        seen.append(str(x.aval.sharding.spec))
                        return wsc(x * 2, arr_spec)
                    y = jax.jit(f)(arr)
                    return [seen, str(y.sharding.spec), np.asarray(y).sum().item()]
                out[f"size one constraint {arr_spec}"] = _answer(case)
            x = jax.device_put(np.arange(16).reshape(8, 2), P("x"))
            out["size one constraint mismatch"] = _answer(
                lambda: jax.jit(lambda v: wsc(v, P(None, "y")))(x).tolist())
    finally:
        jax.config.update("jax_remove_size_one_mesh_axis_from_type", False)


def _array_mappings(jax, out):
    """`jax._src.sharding_impls.array_mapping_to_axis_resources`: a {mesh axis: dimension}
    mapping as a PartitionSpec."""
    import importlib
    impls = importlib.import_module(jax.__name__ + "._src.sharding_impls")
    for mapping in [{}, {"x": 0, "y": 1, "z": 2}, {"x": 0, "y": 0, "z": 1},
                    {"x": 0, "y": 0, "z": 2}, {"x": 0, "y": 1, "z": 3}, {"y": 1, "x": 1}]:
        out[f"array mapping {mapping}"] = _answer(
            lambda m=mapping: repr(impls.array_mapping_to_axis_resources(m)))


def _array_to_device(jax, out):
    """`jnp.array(x, device=d)` of an Array committed elsewhere: JAX's "Received incompatible
    devices" ValueError; uncommitted ones and host data move to `d`."""
    import numpy as np
    jnp = jax.numpy
    devs = jax.devices()
    arr = jax.device_put(np.arange(8), devs[0])
    mesh = jax.make_mesh((2,), ("x",), devices=devs[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))
    split = jax.device_put(np.arange(8), jax.NamedSharding(mesh, jax.P("x")))
    for name, f in [("committed", lambda: jnp.array(arr, device=devs[1])),
                    ("asarray", lambda: jnp.asarray(arr, device=devs[1])),
                    ("no copy", lambda: jnp.array(arr, copy=False, device=devs[1])),
                    ("same device", lambda: jnp.array(arr, device=devs[0])),
                    ("uncommitted", lambda: jnp.array(jnp.arange(3), device=devs[1])),
                    ("numpy", lambda: jnp.array(np.arange(3), device=devs[1])),
                    ("split", lambda: jnp.array(split, device=devs[1]))]:
        def case(f=f):
            y = f()
            return [sorted(d.id for d in y.devices()), y.tolist()]
        out[f"array to device {name}"] = _answer(case)


def _small_array_test_items(jax, out):
    """array_test.py's and core_test.py's single items: `core.ManualAxisType` interned and
    immutable; `core.modify_spec_for_auto_manual` and a ShapedArray typed over a mesh of mixed
    axis types keeping the Explicit axes only; ShapedArray's `manual_axis_type=`; two
    shardings over one AbstractMesh equivalent; the empty mesh from a 0-d grid; rows of a
    replicated array keeping its sharding; a replicated donated argument deleted;
    make_array_from_callback under jit; `np.dtype(x)`'s deprecation."""
    import copy
    import importlib
    import pickle
    import warnings
    import numpy as np
    core = importlib.import_module(jax.__name__ + "._src.core")
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    M = core.ManualAxisType
    mt = M(varying={"x"}, unreduced={"y"}, reduced={"z"})
    out["mat interned"] = _answer(lambda: [mt is M(varying={"x"}, unreduced={"y"},
                                                   reduced={"z"}),
                                           pickle.loads(pickle.dumps(mt)) is mt,
                                           copy.deepcopy(mt) is mt, copy.copy(mt) is mt])
    out["mat setattr"] = _answer(lambda: setattr(mt, "varying", frozenset()))
    out["mat delattr"] = _answer(lambda: delattr(mt, "varying"))
    out["mat overlap"] = _answer(lambda: M(varying={"x"}, unreduced={"x"}))
    out["mat update"] = _answer(lambda: repr(mt.update(varying=frozenset())))
    mesh = jax.sharding.AbstractMesh((2, 2, 2, 2), ("a", "b", "c", "d"), axis_types=(
        AxisType.Explicit, AxisType.Explicit, AxisType.Auto, AxisType.Manual))
    for i, spec in enumerate([P(("a", "b", "c"), "d"), P(("a", "c"), "b", "d"),
                              P(unreduced={"a", "c"}), P("c", reduced={"b", "d"})]):
        out[f"modify spec {i}"] = _answer(
            lambda spec=spec: repr(core.modify_spec_for_auto_manual(spec, mesh)))
    aval = jax.core.ShapedArray((16, 8, 4, 2), np.float32)
    for i, spec in enumerate([P(("a", "b", "c"), "d"), P(("a", "c"), "b", "d")]):
        out[f"aval update mixed {i}"] = _answer(
            lambda spec=spec: repr(aval.update(sharding=NamedSharding(mesh, spec)).sharding.spec))
    three = jax.sharding.AbstractMesh((2, 2, 2), ("a", "b", "c"), axis_types=(
        AxisType.Explicit, AxisType.Explicit, AxisType.Manual))
    out["aval manual_axis_type"] = _answer(lambda: jax.core.ShapedArray(
        (1, 1), np.float32, sharding=NamedSharding(three, P(unreduced={"a"}, reduced={"b"})),
        manual_axis_type=M(varying={"c"})).str_short(True))
    concrete = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2])
    out["abstract equivalent"] = _answer(lambda: NamedSharding(
        concrete.abstract_mesh, P("x")).is_equivalent_to(
            NamedSharding(concrete.abstract_mesh, P("x")), 2))
    out["empty mesh"] = _answer(lambda: [
        (m.empty, m.size, m.abstract_mesh.empty, m.abstract_mesh.size)
        for m in [jax.sharding.Mesh(np.empty((), dtype=object), [])]] +
        [jax.sharding.AbstractMesh((), ()).size])
    grid = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    explicit = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(16.).reshape(8, 2)
    for name, s in [("auto", NamedSharding(grid, P())), ("auto none", NamedSharding(grid, P(None))),
                    ("explicit", NamedSharding(explicit, P())),
                    ("split", NamedSharding(grid, P("x")))]:
        def rows(s=s):
            row = next(iter(jax.device_put(value, s)))
            return [repr(row.sharding.spec) if hasattr(row.sharding, "spec") else
                    type(row.sharding).__name__, len(row.sharding.device_set), row.committed,
                    str(jax.typeof(row)), row.tolist()]
        out[f"iter rows {name}"] = _answer(rows)

    def donated():
        arr = jax.numpy.arange(16)
        y = jax.jit(lambda x: x * 2, in_shardings=NamedSharding(grid, P()),
                    donate_argnums=0)(arr)
        return [arr.is_deleted(), y.tolist()]
    out["donated replicated"] = _answer(donated)
    callback_mesh = jax.make_mesh((2, 2), ("x", "y"), devices=jax.devices()[:4])

    def from_callback(arr):
        return jax.make_array_from_callback(arr.shape, NamedSharding(callback_mesh, P("x", "y")),
                                            lambda i: arr[i])
    out["make_array_from_callback jit"] = _answer(lambda: jax.jit(from_callback)(
        jax.numpy.arange(16).reshape(4, 4)))

    emesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                          axis_types=(AxisType.Explicit,))

    def stage_avals():
        with jax.set_mesh(emesh):
            f = jax.jit(lambda x: x * 2, in_shardings=P("x"), out_shardings=P("x"))
            lowered = f.lower(np.arange(8))
            compiled = lowered.compile()
            return [repr(stage.in_avals[0][0].sharding) for stage in (lowered, compiled)]
    out["stage in_avals over the abstract mesh"] = _answer(stage_avals)

    def dtype_of():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = np.dtype(jax.numpy.arange(4))
        return [str(got), [(w.category.__name__, str(w.message)) for w in caught]]
    out["np.dtype of array"] = _answer(dtype_of)


def _aval_shardings(jax, out):
    """Every type names a mesh (JAX's aval.sharding): over a mesh of Auto axes an Array's and
    the values computed from it name its AbstractMesh, a constraint's result the constraint's
    mesh, with no axis in the spec; a value on no mesh the empty one; over Explicit axes the
    typed split names the AbstractMesh, inside jit, in eval_shape and in a result's aval."""
    import numpy as np
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    AxisType = jax.sharding.AxisType
    auto = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    other = jax.make_mesh((2, 2), ("a", "b"), devices=jax.devices()[:4],
                          axis_types=(AxisType.Auto,) * 2)
    explicit = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(16.).reshape(8, 2)

    def auto_types():
        arr = jax.device_put(value, NamedSharding(auto, P("x", None)))
        seen = [repr(arr.aval.sharding)]

        @jax.jit
        def f(x, n):
            a = x * 2
            b = jax.lax.with_sharding_constraint(a.T, NamedSharding(other, P("a")))
            seen.extend(repr(v.aval.sharding) for v in (x, a, a.sum(0), b, n, n + 1))
            seen.extend(repr(jax.typeof(v).sharding) for v in (x, b, n))
            return a
        f(arr, np.ones(3, np.float32))
        return seen
    out["aval sharding over auto axes"] = _answer(auto_types)
    key_mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                             axis_types=(AxisType.Auto,))

    def key_constraint():
        seen = []

        def f(k):
            y = jax.lax.with_sharding_constraint(k, NamedSharding(key_mesh, P()))
            seen.append(repr(y.aval.sharding))
            return y.T
        return [str(jax.typeof(jax.jit(f)(jax.random.key(0))))] + seen[:1]   # (traced once)
    out["aval sharding of a constrained key"] = _answer(key_constraint)
    out["aval sharding on no mesh"] = _answer(lambda: [
        repr(jax.numpy.ones(3).aval.sharding),
        repr(jax.core.ShapedArray((2,), np.float32).sharding)])

    def explicit_types():
        arr = jax.device_put(value, NamedSharding(explicit, P("x", None)))
        arr2 = jax.device_put(value.T, NamedSharding(explicit, P(None, "y")))
        seen = []

        @jax.jit
        def f(x, y):
            z = x @ y
            seen.extend(repr(v.aval.sharding) for v in (x, y, z, z * 2))
            return z
        res = f(arr, arr2)
        shape = jax.eval_shape(f, arr, arr2)
        return seen + [repr(res.aval.sharding), repr(shape.sharding)]
    out["aval sharding over explicit axes"] = _answer(explicit_types)

    def given_out_sharding():
        with jax.set_mesh(explicit):
            res = jax.jit(lambda x: x * 2, out_shardings=P("x", "y"))(
                jax.device_put(value, P("x", None)))
            return [repr(res.sharding.spec), repr(res.aval.sharding)]
    out["aval sharding of a result laid out as out_shardings"] = _answer(given_out_sharding)


def _sdy_shardings(jax, out):
    """`_to_sdy_sharding(ndim)` of a NamedSharding (with and without modify_wrt_axis_types), a
    SingleDeviceSharding and a GSPMDSharding (replicated, tiled, or an order that is no iota):
    JAX's SdyArray, its repr and fields (array_test.py's `test_gspmd_sharding_shardy_lowering`)."""
    import importlib
    import numpy as np
    impls = importlib.import_module(jax.__name__ + "._src.sharding_impls")
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    mixed = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Explicit))

    def fields(a):
        return [repr(a), a.mesh_shape and [list(t) for t in a.mesh_shape],
                [[list(d.axes), d.is_open] for d in a.dim_shardings],
                sorted(a.replicated_axes), sorted(a.unreduced_axes)]

    def named(m, spec, ndim, modify=False):
        return lambda: fields(NamedSharding(m, spec)._to_sdy_sharding(ndim, modify))
    out["sdy of P(x, None)"] = _answer(named(mesh, P("x", None), 2))
    out["sdy of P((x, y),) rank 3"] = _answer(named(mesh, P(("x", "y")), 3))
    out["sdy of P(None, UNCONSTRAINED)"] = _answer(named(mesh, P(None, P.UNCONSTRAINED), 2))
    out["sdy of P(x) unreduced y"] = _answer(named(mesh, P("x", unreduced={"y"}), 2))
    out["sdy of P(x) mixed modified"] = _answer(named(mixed, P("x"), 2, True))
    out["sdy of P() mixed modified"] = _answer(named(mixed, P(), 2, True))
    out["sdy of P(y) mixed modified"] = _answer(named(mixed, P(None, "y"), 2, True))
    out["sdy of a single device"] = _answer(
        lambda: fields(jax.sharding.SingleDeviceSharding(jax.devices()[0])._to_sdy_sharding(2)))

    def gspmd(spec, ndim, devices=None):
        def f():
            m = mesh if devices is None else jax.sharding.Mesh(
                np.array(devices).reshape(2, 2), ("x", "y"))
            ns = NamedSharding(m, spec)
            gs = impls.GSPMDSharding(ns._device_assignment, ns._to_xla_hlo_sharding(ndim))
            return fields(gs._to_sdy_sharding(ndim))
        return f
    out["sdy of gspmd P(x, y)"] = _answer(gspmd(P("x", "y"), 2))
    out["sdy of gspmd P(None, y)"] = _answer(gspmd(P(None, "y"), 2))
    out["sdy of gspmd P((x, y))"] = _answer(gspmd(P(("x", "y")), 3))
    out["sdy of gspmd P()"] = _answer(gspmd(P(), 2))
    out["sdy of gspmd P(y, x)"] = _answer(gspmd(P("y", "x"), 2))
    devs = jax.devices()
    out["sdy of gspmd not an iota"] = _answer(
        gspmd(P("x", "y"), 2, [devs[0], devs[3], devs[1], devs[2]]))


def _top_level_gathers(jax, out):
    """`top_level_all_gather` (jax._src.shard_map): the result's spec, value and blocks,
    its gradient's sharding, and JAX's ValueErrors (pjit_test.py's `test_top_level_ag_*`)."""
    import importlib
    import numpy as np
    ag = importlib.import_module(jax.__name__ + "._src.shard_map").top_level_all_gather
    P, NamedSharding = jax.sharding.PartitionSpec, jax.NamedSharding

    def one_axis():
        with jax.set_mesh(jax.make_mesh((2,), ("x",))):
            res = jax.jit(lambda x: ag(x, P(reduced={"x"})))(
                jax.device_put(np.arange(8.), P("x")))
            return [repr(res.sharding.spec), res.tolist(),
                    [s.data.tolist() for s in res.addressable_shards]]
    out["top level ag one axis"] = _answer(one_axis)

    def multi(in_spec, out_spec, multi_dim):
        def f():
            with jax.set_mesh(jax.make_mesh((2, 2, 2), ("x", "y", "z"))):
                arr = jax.device_put(np.arange(16.).reshape(8, 2), in_spec)
                g = jax.jit(lambda x: ag(x, out_spec, multi_dim=multi_dim))
                res = g(arr)
                grad = jax.jit(jax.grad(lambda x: g(x).sum()))(arr)
                spec = res.sharding.spec      # (its reduced set's order is the hash's)
                return [repr(P(*spec.partitions)), sorted(spec.reduced),
                        bool(np.array_equal(np.asarray(res), np.asarray(arr))),
                        repr(grad.sharding.spec), grad.tolist()]
        return f
    out["top level ag xy to reduced"] = _answer(multi(P("x", "y"), P(None, None,
                                                                     reduced={"x", "y"}), True))
    out["top level ag (x, y) to x"] = _answer(multi(P(("x", "y"), None),
                                                   P("x", None, reduced={"y"}), False))
    out["top level ag (y, x) to y"] = _answer(multi(P(("y", "x"), None),
                                                   P("y", None, reduced={"x"}), False))
    out["top level ag two dims not multi"] = _answer(multi(P("x", "y"), P(), False))

    def errors():
        said = []
        with jax.set_mesh(jax.make_mesh((2, 2), ("x", "y"))):
            for spec, to in [(P(None, "y"), P("x", "y")), (P(("x", "y"), None), P("y", None))]:
                try:
                    ag(jax.device_put(np.arange(16).reshape(8, 2), spec), to)
                except ValueError as e:
                    said.append(str(e))
        with jax.set_mesh(jax.make_mesh((2,), ("x",),
                                        axis_types=(jax.sharding.AxisType.Auto,))):
            try:
                ag(np.arange(4.), P())
            except ValueError as e:
                said.append(str(e))
        return said
    out["top level ag errors"] = _answer(errors)


def _array_impl_constructor(jax, out):
    """JAX's `ArrayImpl(aval, sharding, arrays, committed=)` (jax._src.array): per-device
    arrays in any order placed by device, `committed`, and JAX's ValueErrors (array_test.py's
    `test_wrong_num_arrays`, `..._devices_in_arrays...`, `test_mismatch_dtype`; pjit_test.py's
    `test_fast_path_array`, `test_pjit_uncommitted_array_multi_devices`)."""
    import importlib
    import math
    import numpy as np
    array = importlib.import_module(jax.__name__ + "._src.array")
    core = importlib.import_module(jax.__name__ + "._src.core")
    P, NamedSharding = jax.sharding.PartitionSpec, jax.NamedSharding
    devs = jax.devices()
    shape = (8, 2)
    data = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    aval = core.ShapedArray(shape, np.float32)

    def reordered():
        mesh = jax.sharding.Mesh(np.array([[devs[0], devs[2]], [devs[3], devs[1]],
                                           [devs[4], devs[6]], [devs[7], devs[5]]]), ("x", "y"))
        s = NamedSharding(mesh, P("x", "y"))
        idx = s.devices_indices_map(shape)
        arr = array.ArrayImpl(aval, s, [jax.device_put(data[idx[d]], d) for d in devs],
                              committed=True)
        res = jax.jit(lambda x: x, out_shardings=s)(arr)
        return [arr.tolist(), arr.committed, repr(arr.sharding.spec),
                [[s.device.id, s.data.tolist()] for s in arr.addressable_shards][:3],
                res.tolist()]
    out["ArrayImpl from reordered arrays"] = _answer(reordered)

    def uncommitted():
        mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
        arr = array.ArrayImpl(core.ShapedArray(shape, np.int32), NamedSharding(mesh, P(None)),
                              [jax.device_put(data.astype(np.int32), d)
                               for d in mesh.devices.flat], committed=False)
        seen = [arr.committed]
        try:
            jax.jit(lambda x: x)(arr)
        except NotImplementedError as e:
            seen.append(str(e))
        return seen
    out["ArrayImpl uncommitted over devices"] = _answer(uncommitted)

    def one_device(committed):
        def f():
            x = array.ArrayImpl(core.ShapedArray((3,), np.float32),
                                jax.sharding.SingleDeviceSharding(devs[1]),
                                [jax.device_put(np.arange(3.0, dtype=np.float32), devs[1])],
                                committed=committed)
            return [x.tolist(), x.committed, x.device.id]
        return f
    out["ArrayImpl one device committed"] = _answer(one_device(True))
    out["ArrayImpl one device uncommitted"] = _answer(one_device(False))

    def make(sharding, arrays, dtype=np.float32):
        return lambda: array.ArrayImpl(core.ShapedArray(shape, dtype), sharding, arrays,
                                       committed=True)
    mesh12 = jax.sharding.Mesh(np.array(devs[:2]).reshape(1, 2), ("x", "y"))
    s = NamedSharding(mesh12, P("x", "y"))
    idx = s.devices_indices_map(shape)
    bufs = [jax.device_put(data[idx[d]], d) for d in devs[:2]]
    out["ArrayImpl too few arrays"] = _answer(make(s, bufs[:1]))
    out["ArrayImpl too many arrays"] = _answer(
        make(s, bufs + [jax.device_put(b, d) for b, d in zip(bufs, devs[2:4])]))
    sx = NamedSharding(mesh12, P("x"))
    out["ArrayImpl arrays on other devices"] = _answer(
        make(sx, [jax.device_put(data, d) for d in devs[2:4]]))
    out["ArrayImpl arrays on one device twice"] = _answer(
        make(sx, [jax.device_put(data, devs[0]) for _ in range(2)]))
    out["ArrayImpl arrays of another dtype"] = _answer(lambda: str(make(
        s, [jax.device_put(data.astype(np.int32)[idx[d]], d) for d in devs[:2]])()).split(
            " for buffer")[0])


def _segment_out_shardings(jax, out):
    """`jax.ops.segment_*(..., out_sharding=)` over an Explicit mesh: the result's spec and
    value, an unreduced sum's total, and JAX's NotImplementedError for unreduced max, min and
    prod (pjit_test.py's `test_segment_sum`, `_max`, `_prod`; the unreduced sum's blocks are
    left out: JAX's are each device's partial sums, jxkernel's another split of the total)."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec

    def segments(op, spec):
        def f():
            with jax.set_mesh(jax.make_mesh((4,), ("x",))):
                a = jax.device_put(jnp.arange(8, dtype=jnp.int32), P("x"))
                b = jax.device_put(jnp.array([0, 0, 1, 1, 1, 2, 2, 3]), P("x"))
                res = jax.jit(lambda x, y: getattr(jax.ops, op)(
                    x, y, num_segments=4, out_sharding=spec))(a, b)
                return [repr(res.sharding.spec),
                        np.asarray(jax.reshard(res, P())).tolist()]
        return f
    for op in ("segment_sum", "segment_max", "segment_min", "segment_prod"):
        out[f"{op} out_sharding P()"] = _answer(segments(op, P()))
        out[f"{op} out_sharding unreduced"] = _answer(segments(op, P(unreduced={"x"})))


def _mesh_context_names(jax, out):
    """jax._src.mesh's `empty_abstract_mesh`, jax._src.config's `device_context` and
    `abstract_mesh_context_manager` (`set_local`, undoing a `jax.set_mesh(mesh)` made without
    `with`), and sharding_impls' cached `named_sharding_to_xla_hlo_sharding` (pjit_test.py's
    `test_set_mesh`, `test_set_mesh_none`, `test_op_sharding_cache_on_mesh_pspec_sharding`)."""
    import importlib
    import numpy as np
    mesh_lib = importlib.import_module(jax.__name__ + "._src.mesh")
    config = importlib.import_module(jax.__name__ + "._src.config")
    impls = importlib.import_module(jax.__name__ + "._src.sharding_impls")
    P, NamedSharding = jax.sharding.PartitionSpec, jax.NamedSharding

    def none_mesh():
        with jax.set_mesh(None):
            return [repr(mesh_lib.empty_abstract_mesh),
                    jax.sharding.get_abstract_mesh() == mesh_lib.empty_abstract_mesh,
                    jax.sharding.get_mesh() == mesh_lib.empty_concrete_mesh,
                    repr(jax.jit(lambda x: x * 2)(np.arange(4)).aval.sharding.mesh)]
    out["set_mesh None"] = _answer(none_mesh)

    def global_mesh():
        mesh = jax.make_mesh((2,), ("x",))
        try:
            jax.set_mesh(mesh)
            res = jax.reshard(np.arange(8), P("x"))
            seen = [res.sharding == NamedSharding(mesh, P("x")), jax.sharding.get_mesh() == mesh,
                    config.device_context.value == mesh]
        finally:
            config.abstract_mesh_context_manager.set_local(mesh_lib.empty_abstract_mesh)
            config.device_context.set_local(None)
        return seen + [repr(jax.sharding.get_abstract_mesh()),
                       jax.sharding.get_mesh() == mesh_lib.empty_concrete_mesh]
    out["set_mesh without with, undone"] = _answer(global_mesh)

    def hlo_cache():
        mesh = jax.make_mesh((4, 2), ("x", "y"))
        impls.named_sharding_to_xla_hlo_sharding.cache_clear()
        op1 = NamedSharding(mesh, P("x", "y"))._to_xla_hlo_sharding(2)
        info1 = impls.named_sharding_to_xla_hlo_sharding.cache_info()
        op2 = NamedSharding(mesh, P("x", "y"))._to_xla_hlo_sharding(2)
        info2 = impls.named_sharding_to_xla_hlo_sharding.cache_info()
        return [op1 is op2, info2.hits - info1.hits, info2.misses - info1.misses, str(op1)]
    out["named sharding hlo cached"] = _answer(hlo_cache)


def _reshard_keys(jax, out):
    """`jax.reshard` of a typed key under jit (its data's element axis unsplit): the result's
    sharding and data (pjit_test.py's `test_reshard_rng_keys`, `..._sharding`)."""
    import numpy as np
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType

    def explicit():
        with jax.set_mesh(jax.make_mesh((2,), ("x",))):
            key = jax.random.key(12)
            res = jax.jit(lambda: jax.reshard(key, P()))()
            keys = jax.jit(lambda k: jax.reshard(k, P("x")))(jax.random.split(key, 4))
            # (key_data(keys).sharding.spec left out: JAX's is P('x', None), jxkernel's
            # P('x',), a difference of the unpadded spec an Array keeps, not of reshard)
            return [repr(res.sharding.spec), str(jax.typeof(res)),
                    np.asarray(jax.random.key_data(res)).tolist(), repr(keys.sharding.spec),
                    np.asarray(jax.random.key_data(keys)).tolist()]
    out["reshard keys"] = _answer(explicit)

    def to_other_mesh():
        with jax.set_mesh(jax.make_mesh((2,), ("x",), axis_types=(AxisType.Auto,))):
            key = jax.random.key(12)
            mesh = jax.sharding.AbstractMesh((2,), ("x",), (AxisType.Explicit,))
            res = jax.jit(lambda: jax.reshard(key, NamedSharding(mesh, P())))()
            return [repr(res.sharding.spec), np.asarray(jax.random.key_data(res)).tolist()]
    out["reshard keys to an explicit abstract mesh"] = _answer(to_other_mesh)


def _padded_aval_specs(jax, out):
    """`ShapedArray(..., sharding=)` over Explicit axes: `.sharding.spec` has a partition per
    axis (pjit_test.py's `test_aval_spec_explicit_auto_complete`), also under jit."""
    import importlib
    import numpy as np
    core = importlib.import_module(jax.__name__ + "._src.core")
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    mesh = jax.sharding.AbstractMesh((2,), ("x",), axis_types=(AxisType.Explicit,))
    out["ShapedArray sharding padded"] = _answer(lambda: [
        repr(core.ShapedArray((8, 2), np.int32,
                              sharding=NamedSharding(mesh, P("x"))).sharding.spec),
        repr(core.ShapedArray((8, 2, 4), np.int32,
                              sharding=NamedSharding(mesh, P(None, "x"))).sharding.spec)])

    def traced():
        seen = []
        with jax.set_mesh(jax.make_mesh((2,), ("x",))):
            x = jax.device_put(np.ones((8, 2, 3)), P("x"))

            @jax.jit
            def f(x):
                seen.append(repr(x.aval.sharding.spec))
                y = x * 2
                seen.append(repr(y.aval.sharding.spec))
                return y
            res = f(x)
            return seen + [repr(jax.typeof(res).sharding.spec)]
    out["aval sharding padded under jit"] = _answer(traced)


def _eqn_context_meshes(jax, out):
    """A jaxpr's equations run under the mesh they were traced under (JAX's
    `eqn.ctx.cur_abstract_mesh`): `jaxpr_as_fun` of a jit's jaxpr with an `explicit_axes`
    block in it, under an Auto mesh (pjit_test.py's `test_full_explicit_mode`,
    `test_auto_mode_mix`, ...), and outside any mesh."""
    import functools
    import importlib
    import numpy as np
    core = importlib.import_module(jax.__name__ + "._src.core")
    jnp = jax.numpy
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)

    def run(outside):
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(16.).reshape(8, 2), NamedSharding(mesh, P("x", "y")))

            @functools.partial(jax.sharding.explicit_axes, in_sharding=P("x", "y"))
            def h(y):
                z = jnp.sin(y)
                return jnp.einsum("ab,bc->ac", z, z.T, out_sharding=P("x", None))

            jaxpr = jax.jit(lambda x: h(x * 2)).trace(arr).jaxpr
            if not outside:
                out = core.jaxpr_as_fun(jaxpr)(arr)[0]
        if outside:
            out = core.jaxpr_as_fun(jaxpr)(arr)[0]
        z = np.sin(np.arange(16.).reshape(8, 2) * 2)
        # (the values within 1e-5 relative of NumPy's: sin and the dot may differ by ulps)
        return [str(jax.typeof(out)), bool(np.allclose(np.asarray(out), z @ z.T, rtol=1e-5))]
    out["eqn context mesh under the mesh"] = _answer(lambda: run(False))
    out["eqn context mesh outside any mesh"] = _answer(lambda: run(True))


def _converted_to_shardings(jax, out):
    """A conversion given a sharding over a mesh of devices with Auto axes is constrained to
    it, eagerly and under jit (pjit_test.py's `test_convert_element_type_sharding`,
    `test_jnp_array_inside_jit_sharding`): `lax._convert_element_type(..., sharding=)` and
    `jnp.array(..., device=)` of NumPy data and of a traced value."""
    import importlib
    import numpy as np
    lax_internal = importlib.import_module(jax.__name__ + "._src.lax.lax")
    jnp = jax.numpy
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    s = NamedSharding(mesh, P("x", "y"))
    inp = np.arange(16).reshape(8, 2)

    def shown(x):
        return [repr(x.sharding), str(x.dtype), np.asarray(x).tolist() == inp.tolist()]
    out["convert_element_type sharding eager"] = _answer(lambda: shown(
        lax_internal._convert_element_type(inp, new_dtype=np.dtype(np.float32),
                                           weak_type=False, sharding=s)))
    out["jnp.array device sharding of a constant under jit"] = _answer(lambda: shown(
        jax.jit(lambda: jnp.array(inp, dtype=np.float32, device=s))()))
    out["jnp.array device sharding of an argument under jit"] = _answer(lambda: shown(
        jax.jit(lambda x: jnp.array(x, dtype=np.float32, device=s))(inp)))


def _sds_like_shardings(jax, out):
    """`jnp.zeros_like` of a ShapeDtypeStruct over an AbstractMesh of Explicit axes takes its
    sharding: eagerly under set_mesh (over its devices) and in a jit traced under
    use_abstract_mesh (pjit_test.py's `test_sds_input_to_zeros_like_propagates_sharding`,
    `test_sds_closed_over_to_zeros_like_propagates_sharding_jit`)."""
    jnp = jax.numpy
    P, NamedSharding, AxisType = jax.sharding.PartitionSpec, jax.NamedSharding, \
        jax.sharding.AxisType
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,))
    am = mesh.abstract_mesh

    def eager():
        with jax.set_mesh(mesh):
            val = jax.ShapeDtypeStruct((32,), jnp.float32, sharding=NamedSharding(am, P("x")))
            res = jnp.zeros_like(val)
            return [repr(res.sharding), str(jax.typeof(res)), float(res.sum())]
    out["zeros_like of an abstract-mesh ShapeDtypeStruct under set_mesh"] = _answer(eager)

    def traced():
        with jax.sharding.use_abstract_mesh(am):
            val = jax.ShapeDtypeStruct((32,), jnp.float32, sharding=NamedSharding(am, P("x")))
            info = jax.jit(lambda: jnp.zeros_like(val)).trace().out_info
            return [repr(info.sharding), str(info.shape)]
    out["zeros_like of an abstract-mesh ShapeDtypeStruct under jit"] = _answer(traced)


def _typed_broadcasts_and_edtypes(jax, out):
    """`lax.broadcast_like` takes `like_arr`'s split too, and refuses an operand split
    otherwise (pjit_test.py's `test_broadcast_like`); a conversion to and from an extended
    dtype keeps the split of the leading dimensions (`test_extended_dtypes`)."""
    import importlib
    import numpy as np
    jnp = jax.numpy
    dtypes = importlib.import_module(jax.__name__ + "._src.dtypes")
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,))

    def like():
        with jax.set_mesh(mesh):
            like_arr = jax.device_put(np.arange(16).reshape(8, 2), P("x", None))
            res = jax.lax.broadcast_like(np.arange(2), like_arr)
            traced = jax.jit(lambda a, l: jax.lax.broadcast_like(a, l)).trace(
                np.arange(2), like_arr).jaxpr
            return [repr(res.sharding.spec), np.asarray(res).tolist(), str(traced)]
    out["broadcast_like of a split like_arr"] = _answer(like)

    def refused():
        with jax.set_mesh(mesh):
            like_arr = jax.device_put(np.arange(16).reshape(8, 2), P("x", None))
            return jax.lax.broadcast_like(jax.device_put(np.arange(2), P("x")), like_arr)
    out["broadcast_like of an operand split otherwise"] = _answer(refused)

    def edtype():
        dtype = dtypes.primal_tangent_dtype(jnp.dtype("int8"), jnp.dtype("bfloat16"))
        seen = []
        with jax.set_mesh(mesh):
            @jax.jit
            def f(x):
                x = jax.lax.convert_element_type(x, dtype)
                seen.append(repr(x.aval.sharding.spec))
                x = jax.lax.convert_element_type(x, "int8")
                seen.append(repr(x.aval.sharding.spec))
                return x
            res = f(jax.device_put(jnp.arange(8, dtype="int8"), P("x")))
            return seen + [repr(res.sharding.spec), np.asarray(res).tolist()]
    out["extended dtype conversions keep the split"] = _answer(edtype)


def _unit_dim_transposes(jax, out):
    """The transpose of a broadcast of a size-1 dimension split over a size-1 mesh axis sums
    only the new dimensions (the split one is not stretched), so the gradient keeps the
    split (pjit_test.py's `test_broadcast_transpose_unit_dims`)."""
    import numpy as np
    jnp = jax.numpy
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,))

    def run():
        with jax.set_mesh(mesh):
            x = jnp.ones((1,), out_sharding=P("x"))
            f = lambda x: jnp.expand_dims(x, -1).sum()
            y = jax.jit(jax.grad(f))(x)
            x2 = jnp.ones((1, 4), out_sharding=P("x"))
            g = lambda x: (x * jax.lax.rsqrt(jnp.mean(x ** 2, axis=-1, keepdims=True))).sum()
            y2 = jax.jit(jax.grad(g))(x2)
            return [str(jax.make_jaxpr(jax.grad(f))(x)), repr(y.sharding.spec),
                    np.asarray(y).tolist(), repr(y2.sharding.spec), str(jax.typeof(y2))]
    out["grad through a broadcast of a split unit dimension"] = _answer(run)


def _size_one_explicit_results(jax, out):
    """A jit's result typed over an Explicit mesh axis of size 1, on a mesh with an Auto
    axis beside it, keeps that split (no layout shows it: pjit_test.py's
    `test_singleton_explicit_axis_multi_auto_axes`)."""
    jnp = jax.numpy
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    mesh = jax.make_mesh((1, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto))

    def run():
        with jax.set_mesh(mesh):
            a = jnp.ones((2, 2), jnp.int32, out_sharding=P("x", None))
            res = jax.jit(lambda: jnp.ones((2, 2), jnp.int32, out_sharding=P("x", None)))()
            b = jnp.ones((2,), jnp.int32, out_sharding=P("x"))
            return [repr(jax.typeof(a).sharding.spec), repr(jax.typeof(res).sharding.spec),
                    repr(res.sharding), repr(jax.typeof(b).sharding.spec)]
    out["jit result over a size-1 Explicit axis beside an Auto one"] = _answer(run)


def _one_device_types(jax, out):
    """An array typed over an Explicit mesh, put on one device, is typed over no mesh
    (pjit_test.py's `test_device_put_typeof`)."""
    import numpy as np
    jnp = jax.numpy
    AxisType = jax.sharding.AxisType
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,))

    def run():
        with jax.set_mesh(mesh):
            array = jnp.zeros(8)
            before = repr(jax.typeof(array).sharding)
            array = jax.device_put(array, jax.sharding.SingleDeviceSharding(jax.devices()[0]))
            return [before, repr(jax.typeof(array).sharding), str(jax.typeof(array)),
                    repr(array.sharding), np.asarray(array).tolist()]
    out["device_put of a typed array onto one device"] = _answer(run)


def _reshard_params(jax, out):
    """A reshard equation's params are `dst_sharding` (the result's type over the
    AbstractMesh, one spec entry per dimension) and `concrete_mesh` (the device Mesh a
    NamedSharding named, None for a bare spec), under grad and vmap too (pjit_test.py's
    `test_unreduced_einsum_add_basic`)."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    AxisType = jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)

    def params(jaxpr):
        return [[sorted(e.params), repr(e.params["dst_sharding"].spec),
                 repr(e.params["concrete_mesh"])]
                for e in jaxpr.eqns if e.primitive.name == "reshard"]

    def run():
        with jax.set_mesh(mesh):
            x = jax.device_put(np.arange(16.).reshape(8, 2), P("x", "y"))
            both = lambda x: (jax.sharding.reshard(x, P("x")),
                              jax.sharding.reshard(x, NamedSharding(mesh, P(None, "y"))))
            grad = lambda x: jax.sharding.reshard(x, P("x")).sum()
            batched = jax.vmap(lambda r: jax.sharding.reshard(r, P("y")))
            a, b = both(x)
            return [params(jax.make_jaxpr(both)(x)), params(jax.make_jaxpr(jax.grad(grad))(x)),
                    params(jax.make_jaxpr(batched)(x)), repr(a.sharding.spec),
                    repr(b.sharding.spec), np.asarray(a + b).tolist()]
    out["reshard params dst_sharding and concrete_mesh"] = _answer(run)

    def in_cond():
        # a reshard to a bare spec inside jit is typed as an eager one: cond's branches agree
        # (pjit_test.py's `test_cond_fori_reduced_fwd`)
        with jax.set_mesh(mesh):
            k = jax.device_put(np.arange(8.), P("x"))
            eager = jax.sharding.reshard(k, P(reduced={"x"}))
            f = jax.jit(lambda p, a: jax.lax.cond(
                p, lambda: jax.sharding.reshard(k, P(reduced={"x"})), lambda: a))
            res = f(np.bool_(True), eager)
            return [str(jax.typeof(res)), np.asarray(res).tolist()]
    out["reshard to a bare spec in a cond branch"] = _answer(in_cond)


def _constraint_params(jax, out):
    """A sharding_constraint equation's params are context_mesh, layout, sharding and
    unconstrained_dims (its spec's P.UNCONSTRAINED dimensions), under vmap with and without
    spmd_axis_name too (pjit_test.py's `test_wsc_vmap_unconstrained_spmd_axis_name`)."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 1), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def params(jaxpr):
        found = []
        for e in jaxpr.eqns:
            if e.primitive.name == "sharding_constraint":
                found.append([sorted(e.params), repr(e.params["sharding"].spec),
                              sorted(e.params["unconstrained_dims"]), repr(e.params["layout"])])
            if e.primitive.name == "jit":
                found.extend(params(e.params["jaxpr"].jaxpr))
        return found

    def run():
        inp = np.ones((10, 10), np.float32)
        f = lambda x: jax.lax.with_sharding_constraint(
            x, NamedSharding(mesh, P(P.UNCONSTRAINED)))
        g = lambda x: jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("x")))
        spmd = jax.jit(lambda y: jax.vmap(f, spmd_axis_name="x")(y))
        plain = jax.jit(lambda y: jax.vmap(f)(y))
        return [params(jax.make_jaxpr(spmd)(inp).jaxpr), params(jax.make_jaxpr(plain)(inp).jaxpr),
                params(jax.make_jaxpr(g)(inp).jaxpr), params(jax.make_jaxpr(jax.grad(
                    lambda x: g(x).sum()))(inp).jaxpr), np.asarray(spmd(inp)).sum().item()]
    out["sharding_constraint params"] = _answer(run)


def _operand_constraints(jax, out):
    """An elementwise op over Explicit axes lays each operand out as its result: a broadcast
    one (`x * 2`) and one of another sharding are constrained to the result's sharding before
    the op (JAX's multi_broadcast_in_dim); a result's sharding with an UNCONSTRAINED dimension
    (a type over a mesh with Auto axes) is no attribute of main's result (pjit_test.py's
    `test_basic_mul`, `test_nary_op_input_constraint`, `test_cond_lowering_constraint`,
    `test_mix_axis_type_in_pspec`, `test_out_sharding_mix_axis_types`)."""
    import re

    import numpy as np
    P, NamedSharding, AxisType = (jax.sharding.PartitionSpec, jax.sharding.NamedSharding,
                                  jax.sharding.AxisType)
    jnp = jax.numpy

    def constraints(lowered):
        text = lowered.as_text()
        result = re.search(r"-> \((.*)\) \{", text).group(1)
        return [result] + [line.strip() for line in text.splitlines()
                           if "sdy.sharding_constraint" in line]

    def run(shape, names, types, spec, f, *more):
        mesh = jax.make_mesh(shape, names, axis_types=types)
        with jax.set_mesh(mesh):
            x = jax.device_put(np.arange(16).reshape(8, 2), NamedSharding(mesh, spec))
            args = (x,) + tuple(jax.device_put(np.arange(16).reshape(8, 2) + i, NamedSharding(
                mesh, spec)) for i, _ in enumerate(more))
            f = jax.jit(f)
            return constraints(f.lower(*args)) + [np.asarray(f(*args)).tolist()]

    explicit = (AxisType.Explicit,) * 2
    out["operand constraints: mul by a scalar"] = _answer(lambda: run(
        (2, 2), ("x", "y"), explicit, P("x", "y"), lambda x: (x * 2) * (x * 2)))
    out["operand constraints: broadcast_to operand"] = _answer(lambda: run(
        (2,), ("x",), explicit[:1], P("x"), lambda x: x * jnp.broadcast_to(2, x.shape)))
    out["operand constraints: cond then mul"] = _answer(lambda: run(
        (2,), ("x",), explicit[:1], P("x"), lambda x, y: jax.lax.cond(
            True, lambda x, y: x, lambda x, y: y, x, y) * 2, None))
    out["operand constraints: comparison and max"] = _answer(lambda: run(
        (2, 2), ("x", "y"), explicit, P("x", "y"),
        lambda x: [(x > 3).astype(np.int32), jnp.maximum(x, 1), x + x.T.T]))
    out["operand constraints: Explicit and Auto axes"] = _answer(lambda: run(
        (2, 2), ("x", "y"), (AxisType.Explicit, AxisType.Auto), P(("x", "y"), None),
        lambda x: x * 2))


def _inline_and_const_results(jax, out):
    """A literal result of an inlined jit is a value of the enclosing trace (pjit_test.py's
    `test_pjit_inline_literal`); a ShapeDtypeStruct returned by a jitted function is JAX's
    TypeError (`test_shape_dtype_struct_as_const_error`)."""
    jnp = jax.numpy

    def inline():
        seen = []

        def foo(x):
            y = jax.jit(lambda x: jnp.array(1), inline=True)(x)
            seen.append([y.shape, str(y.dtype)])
            return y
        return [str(jax.make_jaxpr(jax.jit(foo))(0)), seen, int(jax.jit(foo)(0))]
    out["inline jit literal result"] = _answer(inline)
    const = jax.ShapeDtypeStruct((8,), jnp.int32)
    out["ShapeDtypeStruct as a jit result"] = _answer(
        lambda: jax.jit(lambda x: (x, const))(jnp.arange(8)))
    out["ShapeDtypeStruct as a lowered jit result"] = _answer(
        lambda: jax.jit(lambda x: (x, const)).lower(jnp.arange(8)).as_text())


def _pjit_in_mesh_block(jax, out):
    """A pjit given no shardings, called in a `with mesh:` block, runs over the mesh's devices
    (its equation's ctx_mesh that mesh), its results committed there: P() where nothing splits
    them, an argument's split kept (pjit_test.py's `test_pjit_sin_nested`,
    `test_pjit_uncommitted_array_reshard`, `test_trivial_computation_with_replicated_literal`);
    outside one, and jit's, on one device."""
    import importlib
    import warnings

    import numpy as np
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pjit = importlib.import_module(f"{jax.experimental.__name__}.pjit").pjit
    P, NamedSharding, Mesh = (jax.sharding.PartitionSpec, jax.sharding.NamedSharding,
                              jax.sharding.Mesh)
    jnp = jax.numpy

    def placed(a):
        return [repr(a.sharding), a.committed, len(a.addressable_shards), np.asarray(a).tolist()]

    def run():
        mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        found = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with mesh:
                found.append(placed(pjit(lambda x: jnp.sin(x) * 0 + x)(jnp.arange(8.))))
                found.append(placed(pjit(lambda: 1)()))
                found.append(placed(pjit(lambda x: x)(jnp.array([[1, 2, 3]]))))
                found.append(placed(pjit(lambda x: x * 2)(jax.device_put(
                    np.arange(8.), NamedSharding(mesh, P("x"))))))
                found.append(placed(jax.jit(lambda x: x - 1)(np.arange(4))))
                found.append(str(jax.make_jaxpr(pjit(lambda x: x + 1))(1.0)))
            found.append(placed(pjit(lambda x: x + 2)(jnp.arange(3))))
        return found
    out["pjit in a with-mesh block"] = _answer(run)

    def two_meshes():
        # one function pjitted in two blocks over other devices: each runs on its block's
        # (pjit_test.py's `test_with_sharding_constraint_with_two_meshes`)
        def f(x):
            return jax.lax.with_sharding_constraint(x * 2, P("x")) + 2
        found = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for devices in (jax.devices()[:2], jax.devices()[2:4]):
                with Mesh(devices, ("x",)):
                    y = pjit(f)(np.ones((8, 2)))
                    found.append([sorted(d.id for d in y.devices()), repr(y.sharding.spec),
                                  np.asarray(y).sum().item()])
        return found
    out["pjit of one function in two with-mesh blocks"] = _answer(two_meshes)


def _type_divisibility(jax, out):
    """A type's sharding must divide its shape (JAX's core._check_divisibility, pjit_test.py's
    `test_divisbility_aval_error`)."""
    import importlib
    core = importlib.import_module(jax.__name__ + "._src.core")
    jnp = jax.numpy
    P, NamedSharding, AxisType = (jax.sharding.PartitionSpec, jax.sharding.NamedSharding,
                                  jax.sharding.AxisType)
    mesh = jax.sharding.AbstractMesh((2,), ("x",), axis_types=(AxisType.Explicit,))
    for shape in [(5, 2), (4, 2), (4, 3)]:
        out[f"ShapedArray {shape} split over x"] = _answer(lambda: str(core.ShapedArray(
            shape, jnp.int32, sharding=NamedSharding(mesh, P("x")))))


def _eager_one_device_constraints(jax, out):
    """with_sharding_constraint to a SingleDeviceSharding, run eagerly outside a mesh, puts
    its operand there, committed (pjit_test.py's `test_wsc_eager_copy`)."""
    import numpy as np
    jnp = jax.numpy
    SingleDeviceSharding = jax.sharding.SingleDeviceSharding

    def run():
        x = jnp.arange(10)
        found = []
        for operand in (x, np.arange(3)):
            for device in jax.devices()[:2]:
                y = jax.lax.with_sharding_constraint(operand, SingleDeviceSharding(device))
                found.append([type(y).__name__, y.committed, repr(y.sharding),
                              np.asarray(y).tolist()])
        return found
    out["eager with_sharding_constraint to one device"] = _answer(run)


def _scatter_python_bools(jax, out):
    """A Python bool scattered into an integer array is an int of its dtype (`isinstance(y,
    int)`, as JAX's _scatter_update), so strict promotion takes it (pjit_test.py's
    `test_scatter_bool_index`); a float is still refused."""
    import numpy as np
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)

    def run(update):
        with jax.numpy_dtype_promotion("strict"):
            x = jnp.arange(16).reshape(8, 2)
            eager = np.asarray(update(x)).tolist()
            with jax.set_mesh(mesh):
                arr = jax.device_put(np.arange(16).reshape(8, 2), P("x", "y"))
                out = jax.jit(lambda x: update(x, jax.typeof(x).sharding))(arr)
                return [eager, str(out.dtype), repr(out.sharding.spec), np.asarray(out).tolist()]
    out["scatter a Python bool into ints"] = _answer(lambda: run(
        lambda x, s=None: x.at[:, -1].set(False, out_sharding=s)))
    out["scatter-add a Python bool into ints"] = _answer(lambda: run(
        lambda x, s=None: x.at[:, 0].add(True, out_sharding=s)))
    out["scatter a Python float into ints"] = _answer(lambda: run(
        lambda x, s=None: x.at[:, -1].set(2.5, out_sharding=s)))


def _key_shardings(jax, out):
    """Typed keys over a mesh (pjit_test.py's `test_partial_sharded_prng_key_inp`,
    `test_prng_sharding_propagation`, `test_manual_mode_mix_random`,
    `test_lax_switch_vmap_random`): keys seeded from split seeds keep the seeds' split, a key
    result given no sharding is constrained to its data's trailing axis replicated, keys in a
    shard_map body manual over one axis, and a switch over keys vmapped on an Explicit axis."""
    import importlib
    from functools import partial
    import numpy as np
    jnp = jax.numpy
    prng = importlib.import_module(jax.__name__ + "._src.random.prng")
    threefry = importlib.import_module(jax.__name__ + "._src.random.threefry2x32")
    P, NamedSharding, AxisType = (jax.sharding.PartitionSpec, jax.sharding.NamedSharding,
                                  jax.sharding.AxisType)

    def seeded(shape, axes, spec):
        def run():
            mesh = jax.make_mesh(shape, axes, axis_types=(AxisType.Auto,) * len(axes))
            data = np.arange(math.prod(spec[0]), dtype=np.uint32).reshape(spec[0])
            seeds = jax.device_put(data, NamedSharding(mesh, P(*spec[1])))

            @jax.jit
            def make_keys(seeds):
                return prng.random_seed(seeds, impl=threefry.threefry_prng_impl).T
            keys = make_keys(seeds)
            text = make_keys.lower(seeds).as_text()
            opened = "{?}, " * (len(spec[0])) + "{}"
            return [repr(keys.sharding.spec), str(jax.typeof(keys)),
                    f"<@empty_mesh, [{opened}]>" in text,
                    np.asarray(jax.random.key_data(keys)).tolist()]
        return run
    out["keys seeded from split seeds"] = _answer(seeded((4, 2), ("x", "y"),
                                                         ((8, 2), ("x", "y"))))
    out["keys seeded from partly split seeds"] = _answer(seeded(
        (2, 2, 2), ("x", "y", "z"), ((8, 2, 2), ("x", "y", None))))

    def manual_random():
        mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
        with jax.set_mesh(mesh):
            keys = jax.sharding.reshard(jax.random.split(jax.random.key(0), 2), P("x"))

            def h(key):
                key = key.squeeze(0)
                return (jax.random.bits(key, (1, 4)),
                        jax.random.uniform(key, (1, 4), out_sharding=P(None, "y")))
            g = jax.jit(jax.shard_map(h, out_specs=P("x"), axis_names={"x"}))
            bits, uniform = g(keys)
            return [repr(bits.sharding.spec), repr(uniform.sharding.spec),
                    np.asarray(bits).tolist(), np.asarray(uniform).tolist()]
    out["random bits in a shard_map manual over one axis"] = _answer(manual_random)

    def switch_random():
        mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,))
        with jax.set_mesh(mesh):
            @partial(jax.vmap, in_axes=(None, 0, 0))
            def flip(key, state, index):
                # (uniform over [0, 1): exact, its bits' mantissa less 1.0)
                branches = [lambda _: jax.random.uniform(key, shape=(), minval=0.0,
                                                         maxval=1.0)] * state.shape[0]
                return jax.lax.switch(index, branches, state)
            states = jax.sharding.reshard(jnp.zeros((4, 5)), P("x"))
            index = jax.sharding.reshard(jnp.array([0, 1, 2, 4]), P("x"))
            key = jax.random.key(42)
            eager, jitted = flip(key, states, index), jax.jit(flip)(key, states, index)
            return [str(jax.typeof(eager)), str(jax.typeof(jitted)),
                    np.asarray(eager).tolist(), np.asarray(jitted).tolist()]
    out["switch over a key vmapped on an explicit axis"] = _answer(switch_random)


def _open_result_names(jax, out):
    """A result typed over a mesh with Auto axes (its unsplit dimensions left to XLA) reports
    its type, one spec entry per dimension, where XLA laid it out as typed, else XLA's layout
    as it reads, P(('x', 'y'),) (pjit_test.py's `test_auto_user`, `test_wsc_mix_axis_types`)."""
    import numpy as np
    jnp = jax.numpy
    P, NamedSharding, AxisType = (jax.sharding.PartitionSpec, jax.sharding.NamedSharding,
                                  jax.sharding.AxisType)
    data = np.arange(16.).reshape(8, 2)

    def matmul(types, spec1, spec2):
        def run():
            mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=types)
            with jax.set_mesh(mesh):
                a = jax.device_put(data, NamedSharding(mesh, P(*spec1)))
                b = jax.device_put(data.T, NamedSharding(mesh, P(*spec2)))
                y = jax.jit(lambda x, x2: jnp.sin(x * 2) @ x2)(a, b)
                return [repr(y.sharding.spec), str(jax.typeof(y))]
        return run
    out["sin matmul over explicit x, auto y"] = _answer(matmul(
        (AxisType.Explicit, AxisType.Auto), ("x", "y"), ("y", None)))
    out["sin matmul over auto x, explicit y"] = _answer(matmul(
        (AxisType.Auto, AxisType.Explicit), ("x", "y"), (None, "x")))

    def constrained():
        mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto))
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(16).reshape(8, 2), P("x"))
            y = jax.jit(lambda x: jax.lax.with_sharding_constraint(x, P("y")))(arr)
            return [repr(y.sharding.spec), str(jax.typeof(y)), np.asarray(y).tolist()]
    out["constraint to an auto axis of a value split over an explicit one"] = \
        _answer(constrained)


def _at_file(message: str, case) -> str:
    """An error's text with its " at PATH:LINE:COL (fn)" made " at FILE:case+N (fn)", N the
    line counted from the case function `case` (the recording and the test run this file
    from different folders, and an edit above would move every line)."""
    import re
    first = case.__code__.co_firstlineno
    return re.sub(r" at \S*/([^/\s]+):(\d+):\d+",
                  lambda m: f" at {m.group(1)}:case+{int(m.group(2)) - first}", message)


def _placement_errors(jax, out):
    """JAX's "Received incompatible devices" where a jit's used argument is committed to one
    device and a sharding elsewhere names others: another argument's (named by its pytree
    path), a with_sharding_constraint inside ("sharding_constraint inside jit at ..."), or the
    in_shardings of a jit called inside ("jit inside jit at ..."); an argument never read
    places nothing. A `device=` pjit moves an argument split over a mesh, called or compiled
    ahead of time."""
    import importlib
    import warnings
    from functools import partial
    import numpy as np
    jnp = jax.numpy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pjit = importlib.import_module(f"{jax.experimental.__name__}.pjit").pjit
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    s = NamedSharding(mesh, P("x", "y"))
    dev = jax.devices()
    a = jax.device_put(np.array([1, 2, 3]), dev[0])
    b = jax.device_put(np.array([4, 5, 6]), dev[1])
    c = jax.device_put(np.arange(16).reshape(8, 2), s)

    def err(fn):
        found = _answer(fn)
        return [found[0], _at_file(found[1], _placement_errors)] if found[0] != "ok" else found
    out["device mismatch tuple arg"] = err(lambda: pjit(lambda t: t)((a, (c, b))))
    out["device mismatch dict arg"] = err(lambda: pjit(lambda d: d)(
        {"d": a, "z": a, "a": {"f": a, "y": b, "b": {"g": c, "c": a}}}))
    out["device mismatch unused arg"] = err(lambda: jax.jit(lambda x, y: y * 2)(a, c).tolist())
    committed = jax.device_put(jnp.zeros((8, 2), jnp.bfloat16), dev[0])

    @jax.jit
    def constrained(inp):
        return jax.lax.with_sharding_constraint(inp, s)
    out["device mismatch constraint inside"] = err(lambda: constrained(committed))

    @pjit
    def nested(x, y):
        @partial(pjit, in_shardings=(s, s), out_shardings=(s, s))
        def f(x, y):
            return x * 2, y * 2
        return f(x, y)
    out["device mismatch jit inside"] = err(lambda: nested(committed, committed))

    def moved():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            f = pjit(lambda x: x @ x.T, device=dev[1])
        y = jax.device_put(jnp.arange(8).reshape(4, 2), s)
        got = []
        for r in (f(y), f.lower(jax.ShapeDtypeStruct(y.shape, y.dtype)).compile()(y)):
            got.append([sorted(d.id for d in r.devices()), r.committed, r.tolist()])
        return got
    out["device= pjit of a split argument"] = err(moved)


def _donations_over_meshes(jax, out):
    """What donating deletes: device_put's donate=True deletes an Array it puts onto the same
    devices in another order (JAX reshards it by a jit donating it), and keeps it where it
    moves it otherwise; a donating jit equation run by eval_jaxpr over a mesh deletes the
    donated argument, as a call does."""
    import numpy as np
    jnp = jax.numpy
    P, NamedSharding, Mesh = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.Mesh
    dev = jax.devices()
    mesh1 = Mesh(np.asarray(dev).reshape([1, 2, 2, 2]), ("replica", "data", "seq", "model"))
    mesh2 = Mesh(np.asarray(dev).reshape([1, 1, 2, 2, 2, 1]).swapaxes(2, 3).reshape(
        [1, 1, 4, 2, 1]), ("replica", "data", "seq", "model_q", "model_kv"))
    s1, s2 = NamedSharding(mesh1, P("model")), NamedSharding(mesh2, P("model_q"))
    auto = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def puts():
        found = []
        x1 = jax.device_put(np.arange(16.).reshape(8, 2), s1)
        x2 = jax.device_put(np.arange(16.).reshape(8, 2), s1)
        o1, o2 = jax.device_put((x1, x2), s2, donate=(True, False))
        found.append([x1.is_deleted(), x2.is_deleted(), o1.tolist() == o2.tolist(),
                      repr(o1.sharding.spec)])
        x = jax.device_put(np.arange(8.), s1)
        jax.device_put(x, s2, donate=True)
        found.append(x.is_deleted())
        for target in (NamedSharding(auto, P("y")), dev[2]):
            x = jax.device_put(np.arange(8.), NamedSharding(auto, P("x")))
            jax.device_put(x, target, donate=True)
            found.append(x.is_deleted())
        return found
    out["device_put donate deletes"] = _answer(puts)

    def evaluated():
        f = jax.jit(lambda x: (x, x * 2), donate_argnums=(0,))
        found = []
        for put in (NamedSharding(auto, P()), dev[0]):
            x = jax.device_put(jnp.zeros(64, dtype="int32"), put)
            closed = jax.make_jaxpr(f)(x)
            y = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)
            found.append([x.is_deleted(), y[0].is_deleted(), y[1].is_deleted()])
        return found
    out["eval_jaxpr of a donating jit"] = _answer(evaluated)


def _all_none_shardings(jax, out):
    """A jit's in_shardings or out_shardings given as a pytree of Nones is still checked to be
    a prefix of the arguments (results): JAX's errors, the hint to wrap a single argument's in
    a tuple, and every mismatch counted."""
    import collections
    jnp = jax.numpy
    Foo = collections.namedtuple("Foo", ["x"])
    x = jnp.ones([])
    out["out_shardings all None mismatch"] = _answer(lambda: jax.jit(
        lambda v: v, out_shardings={"a": [None, None], "b": (None, None)})(
            {"a": x, "b": x}) and "ran")
    out["in_shardings namedtuple of None"] = _answer(lambda: jax.jit(
        lambda v: v, in_shardings=Foo(None))(Foo(x)) and "ran")
    out["in_shardings list of None wrong length"] = _answer(lambda: jax.jit(
        lambda v, w: v, in_shardings=[None, None, None])(x, x) and "ran")
    out["in_shardings tuple of None wrapped"] = _answer(lambda: jax.jit(
        lambda v: v, in_shardings=(Foo(None),), out_shardings=Foo(None))(Foo(x)).x.tolist())
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))
    replicated = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    out["in_shardings not a tuple"] = _answer(lambda: jax.jit(
        lambda v: v, in_shardings=Foo(replicated))(Foo(x)) and "ran")


def _host_local_and_no_op_conversions(jax, out):
    """multihost_utils.global_array_to_host_local_array gives an Array already on this
    process's devices back as it is (host data put over the mesh); JAX's private
    `_convert_element_type` gives an Array already of the dtype, weak type and sharding asked
    back as it is (`jnp.array` copies; `jnp.asarray(x, device=d)` of an x already on d: x,
    committed or not), and given a SingleDeviceSharding puts its result there, committed
    (JAX's error for an Array committed elsewhere)."""
    import importlib
    import numpy as np
    jnp = jax.numpy
    mhu = importlib.import_module(f"{jax.experimental.__name__}.multihost_utils")
    lax_internal = importlib.import_module(f"{jax.__name__}._src.lax.lax")
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def host_local():
        arr = jax.device_put(np.arange(16.).reshape(8, 2), NamedSharding(mesh, P("x", "y")))
        one = jax.device_put(np.arange(4.), jax.devices()[1])
        got = mhu.global_array_to_host_local_array(
            {"a": arr, "b": one, "c": np.arange(8.)}, mesh, {"a": P("x", "y"), "b": P(),
                                                           "c": P("x")})
        return [got["a"] is arr, got["b"] is one, repr(got["c"].sharding), got["c"].tolist()]
    out["global_array_to_host_local_array of local arrays"] = _answer(host_local)

    def conversions():
        arr = jax.device_put(np.arange(16).reshape(8, 2), jax.devices()[0])
        one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        split = jax.device_put(np.arange(8.), NamedSharding(mesh, P("x")))
        found = [lax_internal._convert_element_type(arr) is arr,
                 lax_internal._convert_element_type(arr, sharding=one) is arr,
                 lax_internal._convert_element_type(arr, weak_type=True) is arr,
                 lax_internal._convert_element_type(arr, np.dtype("float32")) is arr,
                 lax_internal._convert_element_type(split, sharding=split.sharding) is split,
                 jnp.array(arr, device=jax.devices()[0]) is arr]
        one1 = jax.sharding.SingleDeviceSharding(jax.devices()[1])
        u = jnp.arange(4)
        for operand, dtype in ((u, None), (np.arange(4), None), (u, np.dtype("float32"))):
            moved = lax_internal._convert_element_type(operand, dtype, sharding=one1)
            found.append([sorted(d.id for d in moved.devices()), moved.committed])
        for device in jax.devices()[:2]:
            put = jnp.asarray(u, device=device)
            found.append([put is u, sorted(d.id for d in put.devices()), put.committed])
        found.append(_answer(lambda: lax_internal._convert_element_type(arr, sharding=one1)))
        return found
    out["_convert_element_type no-ops"] = _answer(conversions)


def _cotangent_types(jax, out):
    """A cotangent's type is its primal's with the reduced and unreduced axes swapped (JAX's
    to_ct_aval): the zero cotangent vjp gives an unused reduced input, a gradient through
    broadcast_in_dim, `.at[].get(out_sharding=)`'s gather over Auto axes, reshard and a scan
    (its xs' slices keep their reduced axes, its stacked ys their unreduced ones) and remat
    (its results typed as its body's) and a product by a scalar (the scalar resharded reduced
    as the other operand, JAX's insert_reduced_reshard), and dynamic_update_slice's transpose
    (its zeros typed as the update's cotangent); and, as
    JAX's, jnp.matmul keeps a split size-1 batch dim a dot_general batch dim, an einsum of
    one operand sums typed as its out_sharding, and one of several contractions runs over
    Auto axes."""
    import numpy as np
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    t = lambda v: str(jax.typeof(v))

    def zeros():
        with jax.set_mesh(mesh):
            a = jax.reshard(np.arange(8.), P(reduced={"x"}))
            b = jax.reshard(np.arange(8.), P(reduced={"x"}))
            ct = jax.reshard(jnp.arange(8.), P(unreduced={"x"}))
            found = []
            for f in (jax.jit(lambda x, y: y), lambda x, y: y):
                _, f_vjp = jax.vjp(f, a, b)
                found.append([t(c) for c in f_vjp(ct)])
            return found
    out["cotangent types: vjp zeros of reduced inputs"] = _answer(zeros)

    def through():
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(8.), P(reduced={"x"}))
            params = jax.device_put(np.ones((16, 4), np.float32), P(None, None, reduced={"x"}))
            idx = jax.device_put(np.ones((4, 2), np.int32), P("x", None))
            bcast = lambda x: jax.lax.broadcast_in_dim(x, (2, 8), (1,), out_sharding=P("x", None))
            got = lambda p, i: p.at[i].get(out_sharding=P("x", None, None)).sum()

            def at_get():
                g = jax.jit(jax.grad(got))(params, idx)
                return [t(g), repr(g.sharding.spec), float(jax.reshard(g, P(None, None)).sum())]
            return [
                _answer(lambda: t(jax.jit(jax.grad(lambda x: bcast(x).sum()))(arr))),
                _answer(at_get),
                _answer(lambda: t(jax.grad(lambda x: jax.reshard(x, P()).sum())(arr)))]
    out["cotangent types: gradients of reduced inputs"] = _answer(through)

    def scan():
        with jax.set_mesh(mesh):
            ws = jax.device_put(jnp.ones((3, 4, 4), np.float32), P(None, None, None,
                                                                   reduced={"x"}))
            xs = jax.device_put(jnp.arange(16.).reshape(4, 4), P("x", None))

            def model(ws, x):
                out, _ = jax.lax.scan(lambda c, w: (jnp.dot(c, w), None), x, ws)
                return out.sum()
            g = jax.jit(jax.grad(model))(ws, xs)
            return [str(jax.make_jaxpr(jax.grad(model))(ws, xs)), t(g),
                    jax.reshard(g, P()).tolist()]
    out["cotangent types: a scan over reduced xs"] = _answer(scan)

    def einsums():
        m2 = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(m2):
            arr = jax.device_put(jnp.arange(8).reshape(4, 2), P("x", None))
            one = jax.jit(lambda x: jnp.einsum("ab->b", x, out_sharding=P(None, unreduced={"x"})))
            a1 = jax.device_put(np.arange(2), P("x"))
            a2 = jax.device_put(np.arange(8).reshape(2, 4), P("x", "y"))
            three = jax.jit(lambda a, b, c: jnp.einsum("d,dh,d->h", a, b, c,
                                                       out_sharding=P("y", unreduced={"x"})))
            got = _answer(lambda: [t(three(a1, a2, a1)),
                                   jax.reshard(three(a1, a2, a1), P("y")).tolist()])
            return [str(jax.make_jaxpr(one)(arr)), t(one(arr)),
                    jax.reshard(one(arr), P()).tolist(), got]
    out["cotangent types: einsums typed unreduced"] = _answer(einsums)

    def remat():
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(8.), P(reduced={"x"}))
            f = jax.remat(lambda x: x * x)
            g = jax.jit(jax.grad(lambda x: f(x).sum()))(arr)
            return [t(g), jax.reshard(g, P()).tolist(),
                    str(jax.make_jaxpr(jax.grad(lambda x: jax.remat(lambda y: y)(x).sum()))(arr))]
    out["cotangent types: remat of a reduced input"] = _answer(remat)

    def scalar_operands():
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(4.), P(reduced={"x"}))
            f = lambda x: x * 2
            g = jax.jit(jax.grad(lambda x: f(x).sum()))(arr)
            return [str(jax.make_jaxpr(f)(arr)), str(jax.make_jaxpr(lambda x: 3 - x)(arr)),
                    t(jax.jit(f)(arr)), t(g), jax.reshard(g, P()).tolist()]
    out["cotangent types: a scalar operand of a reduced value"] = _answer(scalar_operands)

    def update_slice():
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(16., dtype=np.float32), P("x"))
            upd = jax.device_put(np.arange(8., dtype=np.float32), P("x"))
            f = lambda a, u: jax.lax.dynamic_update_slice(a, u, (3,)).sum()
            return [[t(g) for g in jax.jit(jax.grad(f, argnums=(0, 1)))(arr, upd)],
                    [t(g) for g in jax.grad(f, argnums=(0, 1))(arr, upd)],
                    jax.grad(f)(arr, upd).tolist()]
    out["cotangent types: dynamic_update_slice of split operands"] = _answer(update_slice)

    def matmul():
        m2 = jax.make_mesh((1, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with jax.set_mesh(m2):
            x = jax.reshard(np.ones((1, 1, 4)), P("x", None, "y"))
            y = jax.reshard(np.ones((1, 4, 2)), P("x", "y", None))
            y2 = jax.reshard(np.ones((1, 4, 2)), P(None, "y", None))
            x2 = jax.reshard(np.ones((1, 2, 4)), P(None, None, "y"))
            jaxpr = lambda f, *a: _answer(lambda: str(jax.make_jaxpr(f)(*a)))
            return [jaxpr(lambda a, b: jnp.matmul(a, b, out_sharding=P("x", unreduced={"y"})),
                          x, y),
                    jaxpr(lambda a, b: jnp.matmul(a, b, out_sharding=P("x")), x, y2),
                    jaxpr(lambda a, b: jnp.matmul(a, b, out_sharding=P()), x2, y2)]
    out["cotangent types: matmul of split size-1 batch dims"] = _answer(matmul)


def _vmapped_and_transposed_types(jax, out):
    """Types over Explicit axes through vmap and transposes, as JAX's rules give them:
    concatenate's batching broadcasts an unbatched operand split as the batched one's batch
    dim (nested vmaps of a concatenate); an unbatched untyped scalar broadcast by vmap is typed
    over the context mesh (a select_n of a batched `which`, inside vmap of slogdet);
    reduce_sum's out_sharding= gets the batch axis; conv_general_dilated's transposes are
    typed as their primal operands and its batching splits the dim the batch joins; a primitive
    of operands over two meshes raises JAX's context-mesh ValueError (its text up to the
    source, which JAX leaves empty while tracing); a key Array over a mesh of Auto axes names
    the mesh in its type, inside a jit given shardings too."""
    import numpy as np
    jnp, lax = jax.numpy, jax.lax
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    explicit = jax.sharding.AxisType.Explicit
    t = lambda v: str(jax.typeof(v))

    def concat():
        mesh = jax.make_mesh((4,), ("x",), axis_types=(explicit,))
        with jax.set_mesh(mesh):
            def f(a, b):
                one = lambda u, v: jnp.concatenate([u, v], axis=-1)
                inner = jax.vmap(jax.vmap(one, in_axes=(None, 0)), in_axes=(0, None))
                return jax.vmap(inner, in_axes=(0, None))(a, b)
            a = jax.device_put(np.ones((8, 3, 2, 2), np.float32), P("x"))
            b = jax.device_put(np.ones((3, 2, 1), np.float32), P())
            return [[t(r), repr(r.sharding.spec), float(r.sum())]
                    for r in (jax.jit(f)(a, b), jax.jit(f)(a, jnp.ones((3, 2, 1))))]
    out["vmapped types: nested vmaps of a concatenate"] = _answer(concat)

    def selects():
        mesh = jax.make_mesh((2,), ("x",), axis_types=(explicit,))
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.array([-1., 2., -3., 4.], np.float32), P("x"))
            f = jax.vmap(lambda v: lax.select(v > 0, v, np.float32(0)))
            A = jax.device_put(np.arange(32., dtype=np.float32).reshape(2, 4, 4)
                               + 5 * np.eye(4, dtype=np.float32), P("x"))
            sign, logdet = jax.vmap(jnp.linalg.slogdet)(A)
            return [_answer(lambda: str(jax.make_jaxpr(f)(arr))),
                    _answer(lambda: [t(jax.jit(f)(arr)), jax.jit(f)(arr).tolist()]),
                    _answer(lambda: t(f(arr))),     # (eager: the broadcast is over the mesh)
                    [t(sign), t(logdet), sign.tolist()]]
    out["vmapped types: scalar select cases and slogdet"] = _answer(selects)

    def sums():
        mesh = jax.make_mesh((2,), ("x",), axis_types=(explicit,))
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(8.).reshape(2, 4), P("x", None))
            f = jax.vmap(lambda v: lax.reduce_sum(v, (0,), out_sharding=P()))
            g = lambda v: lax.reduce_sum(v, (1,), out_sharding=P())
            return [str(jax.make_jaxpr(f)(arr)), t(f(arr)), f(arr).tolist(),
                    _answer(lambda: [str(jax.make_jaxpr(g)(arr)), t(jax.jit(g)(arr)),
                                     t(g(arr)), g(arr).tolist()])]
    out["vmapped types: reduce_sum given out_sharding"] = _answer(sums)

    def convs():
        mesh = jax.make_mesh((2,), ("x",), axis_types=(explicit,))
        dn = lax.ConvDimensionNumbers((0, 2, 1), (2, 1, 0), (0, 2, 1))

        def model(kernel, inputs, **kw):
            padded = jnp.pad(inputs, ((0, 0), (2, 0), (0, 0)))
            return lax.conv_general_dilated(padded, kernel, window_strides=(1,),
                                            padding="VALID", dimension_numbers=dn, **kw)
        kernel = np.linspace(-1, 1, 3 * 1 * 4, dtype=np.float32).reshape(3, 1, 4)
        inputs = np.linspace(-1, 1, 4 * 6, dtype=np.float32).reshape(4, 6, 1)
        with jax.set_mesh(mesh):
            x = jax.device_put(inputs, P("x", None, None))
            grad = jax.jit(jax.grad(lambda k, i: model(k, i).sum(), argnums=(0, 1)))
            # (a NumPy kernel: its cotangent's conv has no type to take, JAX's error)
            grads = [_answer(lambda: [[t(v), repr(v.sharding.spec),
                                       np.round(np.asarray(v), 4).tolist()]
                                      for v in grad(k_, x)])
                     for k_ in (kernel, jax.device_put(kernel, P()))]
        m2 = jax.make_mesh((2, 2), ("x", "y"), axis_types=(explicit,) * 2)
        with jax.set_mesh(m2):
            xs = jax.device_put(np.stack([inputs] * 2, 1), P("x", None, None, None))
            k = jax.device_put(kernel, P(None, None, None))
            f = jax.jit(jax.vmap(lambda k_, i: model(k_, i, out_sharding=P(None, None, None)),
                                 in_axes=(None, 0), out_axes=1))
            r = f(k, xs)
            vm = [t(r), repr(r.sharding.spec), np.round(np.asarray(r), 4).tolist()]
        return [grads, vm]
    out["vmapped types: conv_general_dilated's transposes and batching"] = _answer(convs)

    def two_meshes():
        mesh = jax.make_mesh((1,), ("x",), axis_types=(explicit,), devices=jax.devices()[:1])
        mesh2 = jax.sharding.Mesh([jax.devices()[0]], "y", axis_types=(explicit,))
        with jax.set_mesh(mesh):
            a = jax.device_put(np.arange(8), NS(mesh, P()))
            b = jax.device_put(np.arange(8), NS(mesh2, P()))
            try:
                jax.jit(lambda u, v: u + v)(a, b)
            except Exception as e:
                return [type(e).__name__, str(e).split(" This error occurs")[0]]
    out["vmapped types: operands over two meshes in a jit"] = _answer(two_meshes)

    def keys():
        mesh = jax.sharding.Mesh(jax.devices(), axis_names=["batch"])
        s = NS(mesh, P("batch"))
        cond = jax.device_put(jnp.zeros([16, 1], dtype=jnp.bool_), s)
        k = jax.device_put(jnp.broadcast_to(jax.random.key(0), [16, 4]), s)
        seen = []

        def f(c, x, y):
            seen.extend(repr(v.aval.sharding.mesh) for v in (x, y, jnp.asarray(x)))
            return jnp.where(c, x, y)
        r = jax.jit(f, in_shardings=(s, s, s))(cond, k, k)
        return [repr(k.aval.sharding.mesh), seen, str(r.dtype), r.shape]
    out["vmapped types: keys over a mesh of Auto axes"] = _answer(keys)


def _linalg_types(jax, out):
    """The linear-algebra primitives over Explicit axes, as JAX's linalg_sharding_rule types
    them: each result split as its operands' batch dims are (vmap of jnp.linalg.solve over a
    split batch stays split: it was replicated), custom_linear_solve typed as its b; operands
    split on a matrix dim, or on their batch dims differently, JAX's ShardingTypeErrors.
    (Not qr: JAX 0.10.2's fails to lower over a split batch, its _triu's mask typed unsplit
    at lowering; jxkernel lowers the linalg primitives as over values of no sharding.)"""
    import numpy as np
    jnp, lax, lin = jax.numpy, jax.lax, jax.lax.linalg
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    t = lambda v: str(jax.typeof(v))
    ts = lambda tree: [t(v) for v in jax.tree.leaves(tree)]
    rng = np.random.RandomState(0)
    a = (rng.randn(4, 3, 3) + 3 * np.eye(3)).astype(np.float32)
    spd = np.einsum("bij,bkj->bik", a, a).astype(np.float32)
    b = rng.randn(4, 3).astype(np.float32)
    with jax.set_mesh(mesh):
        A, S = jax.device_put(a, P("x")), jax.device_put(spd, P("x"))
        B, B2 = jax.device_put(b, P("x")), jax.device_put(b[..., None], P("x"))
        fns = {
            "cholesky": lambda: lin.cholesky(S),
            "lu": lambda: lin.lu(A),
            "eigh": lambda: lin.eigh(S),
            "svd": lambda: lin.svd(A),
            "eig": lambda: lin.eig(A, compute_left_eigenvectors=False),
            "hessenberg": lambda: lin.hessenberg(A),
            "triangular_solve": lambda: lin.triangular_solve(A, B2, left_side=True),
            "tridiagonal": lambda: lin.tridiagonal(S),
            "tridiagonal_solve": lambda: lin.tridiagonal_solve(B, B * 2 + 5, B, B2),
            "symmetric_product": lambda: lin.symmetric_product(A, S),
            "vmap solve": lambda: jax.vmap(jnp.linalg.solve)(A, B),
            "solve": lambda: jnp.linalg.solve(A, B2),
            "inv": lambda: jnp.linalg.inv(A),
            "det": lambda: jnp.linalg.det(A),
        }
        for name, fn in fns.items():
            out[f"linalg types: {name}"] = _answer(
                lambda fn=fn: [ts(jax.jit(fn)()), ts(fn())])
        out["linalg types: solve's values"] = _answer(lambda: np.round(np.asarray(
            jax.jit(lambda: jax.vmap(jnp.linalg.solve)(A, B))()), 4).tolist())
        split_rows = jax.device_put(2 * np.eye(4, dtype=np.float32), P("x", None))
        out["linalg types: a split matrix dim"] = _answer(
            lambda: t(jax.jit(lin.cholesky)(split_rows)))
        other = jax.device_put(b[..., None], P(None, None, None))
        out["linalg types: batch dims split differently"] = _answer(
            lambda: t(jax.jit(lambda: lin.triangular_solve(A, other, left_side=True))()))
        out["linalg types: an unsplit operand"] = _answer(
            lambda: t(jax.jit(lambda: lin.symmetric_product(A, jnp.asarray(spd)))()))


def _out_sharding_meshes(jax, out):
    """An out_sharding= NamedSharding over another mesh than the abstract mesh in context
    (JAX's canonicalize_sharding): its ValueError (its text up to the source, which jxkernel
    names without a column, and not eagerly), in a jit and eagerly; none where the meshes
    are equal, where both have Auto axes alone, or in a `with mesh:` block (no abstract mesh)."""
    import numpy as np
    jnp, lax = jax.numpy, jax.lax
    P, NS, AT = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.AxisType
    explicit = jax.make_mesh((2,), ("x",), axis_types=(AT.Explicit,))
    auto = jax.make_mesh((2,), ("x",), axis_types=(AT.Auto,))
    auto_y = jax.make_mesh((2,), ("y",), axis_types=(AT.Auto,))
    x = np.arange(16.).reshape(8, 2)

    def text(fn):
        def run():
            try:
                return ["ok", str(jax.typeof(fn()))]
            except ValueError as e:
                return ["ValueError", str(e).split(" This error occurs")[0]]
        return run
    with jax.set_mesh(explicit):
        arr = jax.device_put(x, P("x", None))
        out["out_sharding meshes: einsum in a jit"] = _answer(text(lambda: jax.jit(
            lambda a: jnp.einsum("ab,cb->ac", a, a, out_sharding=NS(auto, P(None, None))))(arr)))
        out["out_sharding meshes: eager reshape"] = _answer(text(
            lambda: lax.reshape(arr, (16,), out_sharding=NS(auto, P(None)))))
        out["out_sharding meshes: the context's"] = _answer(text(
            lambda: lax.reshape(arr, (16,), out_sharding=NS(explicit, P("x")))))
    with jax.set_mesh(auto):
        out["out_sharding meshes: Auto axes alone"] = _answer(text(lambda: jax.jit(
            lambda a: lax.broadcast_in_dim(a, (2, 8, 2), (1, 2),
                                           out_sharding=NS(auto_y, P())))(x)))
    with auto:
        out["out_sharding meshes: a with-mesh block"] = _answer(text(lambda: jax.jit(
            lambda a: lax.reshape(a, (16,), out_sharding=NS(explicit, P("x"))))(x)))


def _sampler_out_shardings(jax, out):
    """A sampler's out_sharding= NamedSharding over a concrete mesh, traced: its type names the
    mesh's AbstractMesh (JAX's canonicalize_sharding, auto_axes' reshard), whose devices come
    from the arguments: with a key on one device and no mesh in context, JAX's
    device-assignment error; with an argument over the mesh, the result laid out as asked."""
    import numpy as np
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    s = NS(mesh, P("x", "y"))
    key = jax.random.key(1)
    seen = []

    def alone(k):
        r = jax.random.normal(k, shape=(8, 12), out_sharding=s)
        seen.append(repr(jax.typeof(r).sharding.mesh))
        return r

    def with_arr(a, k):
        return a + jax.random.normal(k, shape=(8, 12), out_sharding=s)
    arr = jax.device_put(np.arange(96.).reshape(8, 12), s)
    out["sampler out_sharding: no mesh in context"] = _answer(
        lambda: [str(jax.typeof(jax.jit(alone)(key))), seen])
    out["sampler out_sharding: an argument over the mesh"] = _answer(
        lambda: [repr(jax.jit(with_arr)(arr, key).sharding.spec),
                 str(jax.typeof(jax.jit(with_arr)(arr, key)))])


def _abstract_mesh_lowering(jax, out):
    """A jit whose only mesh is an AbstractMesh, lowered for `lowering_platforms` with no
    devices, then compiled for `.compile(device_assignment=)` (JAX's errors without one and
    with too few); an AbstractMesh that does not fit the devices of a sharding over a device
    Mesh; two AbstractMeshes of one size; under use_abstract_mesh of another size, JAX's
    context-mesh ValueError (its text up to the source, which JAX leaves empty while tracing)."""
    import numpy as np
    P, NS, AT = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.AxisType
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AT.Auto,), devices=jax.devices()[:2])
    mesh1 = jax.make_mesh((1,), ("x",), axis_types=(AT.Auto,), devices=jax.devices()[:1])
    sds = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=NS(mesh.abstract_mesh, P("x")))
    f = jax.jit(lambda x: x * 2)

    def err(fn):
        try:
            fn()
            return "ok"
        except Exception as e:
            return [type(e).__name__, str(e).split(" This error occurs")[0]]

    def lowered_and_compiled():
        low = f.trace(sds).lower(lowering_platforms=("cpu",))
        tpu = f.trace(sds).lower(lowering_platforms=("tpu",))
        arr = jax.device_put(np.arange(16., dtype=np.float32).reshape(8, 2), NS(mesh, P("x")))
        c = low.compile(device_assignment=tuple(mesh.devices.flat))
        r = c(arr)
        return ["num_partitions = 2" in low.as_text(), "num_partitions = 2" in tpu.as_text(),
                err(low.compile), err(lambda: low.compile(device_assignment=(jax.devices()[0],))),
                r.tolist(), repr(r.sharding), repr(c.input_shardings)]
    out["abstract lowering: lowered, then compiled for devices"] = _answer(lowered_and_compiled)
    g = jax.jit(lambda x, y: (x, y))
    concrete = jax.ShapeDtypeStruct((8,), np.float32, sharding=NS(mesh, P("x")))
    small = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=NS(mesh1.abstract_mesh, P("x")))
    out["abstract lowering: an AbstractMesh the devices do not fit"] = _answer(
        lambda: err(lambda: g.lower(small, concrete)))
    out["abstract lowering: no lowering_platforms"] = _answer(
        lambda: err(lambda: g.lower(sds, np.arange(8))))
    out["abstract lowering: with a host argument"] = _answer(
        lambda: "num_partitions = 2" in g.trace(sds, np.arange(8)).lower(
            lowering_platforms=("cpu",)).as_text())
    other = jax.make_mesh((2,), ("y",), axis_types=(AT.Auto,), devices=jax.devices()[:2])
    sds_y = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=NS(other.abstract_mesh, P("y")))
    out["abstract lowering: two meshes of one size"] = _answer(
        lambda: "num_partitions = 2" in jax.jit(lambda a, b: a * b).trace(sds, sds_y).lower(
            lowering_platforms=("cpu",)).as_text())
    s4 = NS(jax.make_mesh((4,), ("x",), axis_types=(AT.Auto,),
                          devices=jax.devices()[:4]).abstract_mesh, P("x"))

    def given_shardings():
        h = jax.jit(lambda x: x * 2, in_shardings=s4, out_shardings=s4)
        low = h.trace(jax.ShapeDtypeStruct((4,), np.float32, sharding=s4)).lower(
            lowering_platforms=("cpu",))
        c = low.compile(device_assignment=tuple(jax.devices()[:4]))
        return [err(low.compile), repr(c.input_shardings), repr(c.output_shardings),
                c(jax.device_put(np.arange(4., dtype=np.float32), c.input_shardings[0][0])
                  ).tolist()]
    out["abstract lowering: in/out_shardings over an AbstractMesh"] = _answer(given_shardings)
    explicit2 = jax.sharding.AbstractMesh((2,), ("x",), (AT.Explicit,))
    explicit1 = jax.sharding.AbstractMesh((1,), ("x",), (AT.Explicit,))
    inp = jax.ShapeDtypeStruct((8, 2), np.float32, sharding=NS(explicit1, P("x")))

    def under_other_size():
        with jax.sharding.use_abstract_mesh(explicit2):
            f.trace(inp).lower(lowering_platforms=("cpu",))
    out["abstract lowering: use_abstract_mesh of another size"] = _answer(
        lambda: err(under_other_size))


def _small_api_answers(jax, out):
    """A Mesh over stand-ins for devices (a test's namedtuples: NumPy makes them ints) and its
    HloShardings read back; a ClosedJaxpr's variables (eval_jaxpr takes one); an out_sharding=
    over an AbstractMesh naming a memory kind (JAX's ValueError); key_data of keys a program's
    first run lays out over a mesh names the key dimensions too, a later run's not; vmap's
    spmd_axis_name over a constraint to a SingleDeviceSharding outside a mesh (JAX's error)."""
    import collections
    import importlib
    import numpy as np
    P, NS, AT = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.AxisType

    def stand_ins():
        Fake = collections.namedtuple("FakeDevice", ["id"])
        grid = np.array([Fake(i) for i in range(24)]).reshape(2, 3, 4)
        mesh = jax.sharding.Mesh(grid, ("a", "b", "c"))
        parse = importlib.import_module(
            jax.__name__ + "._src.sharding_impls").parse_flatten_op_sharding
        rows = []
        for spec in [P(), P("a"), P(("b", "a"), None, "c"), P(None, "c")]:
            hlo = NS(mesh, spec)._to_xla_hlo_sharding(3)
            rows.append([str(hlo), [list(map(list, p)) if isinstance(p, tuple) else p
                                    for p in parse(hlo, mesh)[0]]])
        return [mesh.axis_sizes, rows]
    out["small answers: a Mesh of stand-ins"] = _answer(stand_ins)

    def closed_vars():
        mesh = jax.make_mesh((2, 1), ("x", "y"), axis_types=(AT.Explicit,) * 2,
                             devices=jax.devices()[:2])
        with jax.set_mesh(mesh):
            a = jax.device_put(np.arange(8).reshape(4, 2), P("x", "y"))

            config = importlib.import_module(jax.__name__ + "._src.config")

            @jax.jit
            def f(x, y):
                with config.remove_size_one_mesh_axis_from_type(True):
                    return x + y
            closed = f.trace(a, a).jaxpr
            r = jax.core.eval_jaxpr(closed, (), a, a)
            return [len(closed.constvars), len(closed.invars), len(closed.outvars),
                    [v.tolist() for v in r]]
    out["small answers: a ClosedJaxpr's variables"] = _answer(closed_vars)

    def memory_kinds():
        mesh = jax.make_mesh((2,), ("x",), axis_types=(AT.Explicit,), devices=jax.devices()[:2])
        jnp = jax.numpy
        rows = []
        with jax.set_mesh(mesh):
            pinned = NS(mesh.abstract_mesh, P("x"), memory_kind="pinned_host")
            for fn in (lambda: jnp.full((2,), 0, out_sharding=pinned),
                       lambda: jax.jit(lambda: jnp.zeros((4,), out_sharding=pinned))(),
                       lambda: jax.lax.reshape(jnp.arange(4.), (4,), out_sharding=pinned)):
                try:
                    rows.append(["ok", str(jax.typeof(fn()))])
                except ValueError as e:
                    rows.append(["ValueError", str(e)])
            device = NS(mesh.abstract_mesh, P("x"), memory_kind="device")
            try:
                rows.append(["ok", str(jax.typeof(jnp.full((2,), 0, out_sharding=device)))])
            except ValueError as e:
                rows.append(["ValueError", str(e)])
        return rows
    out["small answers: out_sharding naming a memory kind"] = _answer(memory_kinds)

    def key_data_shardings():
        mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AT.Auto,) * 2)
        s = NS(mesh, P("x", "y"))
        seeds = jax.device_put(np.arange(16, dtype=np.uint32).reshape(8, 2), s)
        make = jax.jit(lambda v: jax.random.wrap_key_data(jax.numpy.stack([v, v], -1)).T)
        made, again = make(seeds), make(seeds)
        put = jax.device_put(jax.random.split(jax.random.key(0), 8).reshape(4, 2), s)
        passed = jax.jit(lambda k: k, out_shardings=s)(put)
        # (JAX's first run of a program, its Python path, names the key dimensions; a later
        # run, its C++ fast path, the keys' spec alone)
        return [[repr(k.sharding.spec), repr(jax.random.key_data(k).sharding.spec),
                 jax.random.key_data(k).shape] for k in (made, again, passed)]
    out["small answers: key_data of keys over a mesh"] = _answer(key_data_shardings)

    def spmd_batched_constraint():
        s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        f = lambda v: jax.lax.with_sharding_constraint(v, s)
        arr = jax.device_put(np.arange(8), s)
        rows = [jax.jit(jax.vmap(f))(arr).tolist()]
        try:
            jax.jit(jax.vmap(f, spmd_axis_name="x"))(arr)
            rows.append("ok")
        except ValueError as e:
            rows.append(["ValueError", str(e)])
        return rows
    out["small answers: vmap(spmd_axis_name=) of a one-device constraint"] = _answer(
        spmd_batched_constraint)


def _auto_axes_cotangents(jax, out):
    """The gradient through a gather given out_sharding= over Explicit axes (its operands go
    into Auto axes, JAX's auto_axes), in a jit: typed as its operand, P(None, 'x'), as JAX's
    reshard into the Auto mesh transposes back (it came out unsplit). (Eagerly too:
    _eager_context_answers.)"""
    import numpy as np
    jnp = jax.numpy
    P, NS, AT = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AT.Explicit,) * 2,
                         devices=jax.devices()[:4])

    def grads():
        with jax.set_mesh(mesh):
            embed = jax.device_put(np.arange(1024.).reshape(64, 16), NS(mesh, P(None, "x")))
            tok = jax.device_put(np.arange(32).reshape(8, 4) % 64, NS(mesh, P("x", None)))

            def g(e, t):
                return jnp.sum(e.at[t].get(out_sharding=P("x", None, None)) ** 2)
            rows = []
            r = jax.jit(jax.grad(g))(embed, tok)
            return [str(jax.typeof(r)), repr(r.sharding.spec), float(np.asarray(r).sum())]
    out["auto_axes cotangents: a gather given out_sharding"] = _answer(grads)


def _eager_context_answers(jax, out):
    """What an eager operation meets of the context it was recorded in, as JAX's eqn.ctx: the
    gradient through `.at[t].get(out_sharding=)` over Explicit axes run eagerly (its backward
    pass runs the gather's transpose under auto_axes' Auto mesh); eager results of values on no
    mesh under set_mesh laid out P() (typed over the empty mesh), rng_bit_generator's bits
    typed over the context mesh; a mesh of Explicit axes of size 1 alone under
    jax_remove_size_one_mesh_axis_from_type still typing results unsplit, P(None, None)
    (`test_top_level_ag_no_one_size_mesh_axis`); and jax.threefry_partitionable set inside a
    jitted function holding where its keys' bits are lowered, outside the block
    (`test_threefry_partitionable_context_within_jit`)."""
    import importlib
    import numpy as np
    jnp, lax = jax.numpy, jax.lax
    P, NS, AT = jax.sharding.PartitionSpec, jax.sharding.NamedSharding, jax.sharding.AxisType
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AT.Explicit,) * 2,
                         devices=jax.devices()[:4])

    def eager_grad():
        with jax.set_mesh(mesh):
            embed = jax.device_put(np.arange(1024.).reshape(64, 16), NS(mesh, P(None, "x")))
            tok = jax.device_put(np.arange(32).reshape(8, 4) % 64, NS(mesh, P("x", None)))

            def g(e, t):
                return jnp.sum(e.at[t].get(out_sharding=P("x", None, None)) ** 2)
            r = jax.grad(g)(embed, tok)
            return [str(jax.typeof(r)), repr(r.sharding.spec), float(np.asarray(r).sum())]
    out["eager context: grad of a gather given out_sharding, eagerly"] = _answer(eager_grad)

    def untyped_results():
        one = jax.make_mesh((2,), ("x",), axis_types=(AT.Explicit,), devices=jax.devices()[:2])
        key = np.array((1, 2, 3, 4), np.uint32)
        made = {
            "sin of NumPy": lambda: jnp.sin(np.ones(4, np.float32)),
            "neg of NumPy": lambda: lax.neg(np.ones(4, np.float32)),
            "sum of NumPy": lambda: jnp.sum(np.ones((4, 2), np.float32), axis=0),
            "cumsum of NumPy": lambda: lax.cumsum(np.ones((4,), np.float32)),
            "add of NumPy": lambda: lax.add(np.ones(4, np.float32), np.ones(4, np.float32)),
            "sin of ones": lambda: jnp.sin(jnp.ones(4)),
            "rng key": lambda: lax.rng_bit_generator(key, (4, 8))[0],
            "rng bits": lambda: lax.rng_bit_generator(key, (4, 8))[1],
        }
        with jax.set_mesh(one):
            found = {name: repr(f().sharding.spec) for name, f in made.items()}
            given = lambda k: lax.rng_bit_generator(k, shape=(4, 8), out_sharding=P("x"))
            eager, jitted = given(key), jax.jit(given)(key)
            found["rng out_sharding"] = [repr(v.sharding.spec) for v in (*eager, *jitted)]
            found["rng bits typed"] = repr(jax.make_jaxpr(lambda k: lax.rng_bit_generator(
                k, (4, 8))[1])(key).out_avals[0].sharding.spec)
        return found
    out["eager context: results of values on no mesh under set_mesh"] = _answer(untyped_results)

    def size_one_mesh():
        ag = importlib.import_module(jax.__name__ + "._src.shard_map").top_level_all_gather
        small = jax.make_mesh((1, 1), ("x", "y"), axis_types=(AT.Explicit,) * 2,
                              devices=jax.devices()[:1])
        jax.config.update("jax_remove_size_one_mesh_axis_from_type", True)
        try:
            with jax.set_mesh(small):
                arr = jax.device_put(np.arange(8).reshape(4, 2), P("x", "y"))
                funs = [("identity", lambda x: x), ("sin", jnp.sin),
                        ("top level ag", lambda x: ag(x, P())), ("mul", lambda x: x * 2)]
                return [repr(arr.sharding.spec), str(jax.typeof(arr)),
                        repr(arr.aval.sharding.spec)] + \
                    [[name, repr(jax.jit(f)(arr).sharding.spec)] for name, f in funs]
        finally:
            jax.config.update("jax_remove_size_one_mesh_axis_from_type", False)
    out["eager context: a mesh of size-1 Explicit axes, size-one axes removed"] = \
        _answer(size_one_mesh)

    def threefry():
        with jax.threefry_partitionable(False):
            def f(x):
                return x + jax.random.randint(jax.random.key(72), (), 0, 10)

            def g(x):
                with jax.threefry_partitionable(True):
                    return x + jax.random.randint(jax.random.key(72), (), 0, 10)

            def s(k):
                with jax.threefry_partitionable(True):
                    return jax.random.key_data(jax.random.split(k, 3))
            k, xs = jax.random.key(1), jnp.arange(2)
            return [int(f(1)), int(g(1)), int(jax.jit(g)(1)), int(jax.jit(f)(1)),
                    jax.vmap(jax.jit(g))(xs).tolist(), jax.jit(jax.vmap(g))(xs).tolist(),
                    np.asarray(s(k)).tolist(), np.asarray(jax.jit(s)(k)).tolist()]
    out["eager context: threefry_partitionable inside a jit"] = _answer(threefry)


def _auto_axes_reshards(jax, out):
    """auto_axes traced: its arguments go into the Auto axes by a `reshard` equation, as JAX's
    (jxkernel's staged a sharding_constraint), and a gradient through it comes back typed as
    its argument (`test_auto_axes_no_op`)."""
    import numpy as np
    jnp = jax.numpy
    P, AT = jax.sharding.PartitionSpec, jax.sharding.AxisType
    auto_axes = jax.sharding.auto_axes

    def jaxprs():
        found = []
        for sizes, types, axes, spec in [((2,), (AT.Explicit,), None, P(None)),
                                         ((1, 1), (AT.Auto, AT.Explicit), None, P("y")),
                                         ((1, 1), (AT.Auto, AT.Explicit), "x", P("y"))]:
            names = ("x", "y")[:len(sizes)]
            mesh = jax.make_mesh(sizes, names, axis_types=types,
                                 devices=jax.devices()[:int(np.prod(sizes))])
            with jax.set_mesh(mesh):
                f = auto_axes(lambda x: x * 2, out_sharding=spec, axes=axes)
                x = jax.device_put(np.arange(8.), P(names[0] if types[0] == AT.Explicit
                                                    else None))
                g = jax.grad(lambda x: f(x).sum())
                found.append([str(jax.jit(f).trace(x).jaxpr), jax.jit(f)(x).tolist(),
                              str(jax.typeof(g(x))), str(jax.typeof(jax.jit(g)(x)))])
        return found
    out["auto_axes reshards: traced, their jaxprs and gradients"] = _answer(jaxprs)
