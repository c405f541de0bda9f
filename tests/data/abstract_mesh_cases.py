"""The cases that reference/make_abstract_mesh_reference.py runs on JAX 0.10.2 and
tests/sharding/test_abstract_mesh_programs.py on jxkernel: programs over an AbstractMesh
(JAX's tests/pjit_test.py reads them): use_abstract_mesh's check of the mesh's size against
the one in effect, the shardings of eager results under an abstract mesh of other names or
types, Mesh.update. `run(jax)` takes the `jax` module (real or jxkernel, with 8 CPU devices)
and returns JSON data."""


from case_answer import answer as _answer


def run(jax) -> dict:
    out = {}
    _use_abstract_mesh(jax, out)
    _jit_over_abstract(jax, out)
    _traces(jax, out)
    _meshes_one_after_another(jax, out)
    return out


def _use_abstract_mesh(jax, out):
    """use_abstract_mesh under set_mesh of two devices: a mesh of four refused (on entering,
    as JAX's), one of two devices of other names or types naming eager results' shardings."""
    import numpy as np
    sh, jnp = jax.sharding, jax.numpy
    AbstractMesh, AxisType, P = sh.AbstractMesh, sh.AxisType, sh.PartitionSpec
    mesh = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,),
                         devices=jax.devices()[:2])

    def enter(am):
        with sh.use_abstract_mesh(am):
            return "entered"

    def arange_under(am):
        with sh.use_abstract_mesh(am):
            a = jnp.arange(8)
            return [repr(a.sharding), str(jax.typeof(a)), a.tolist()]

    with jax.set_mesh(mesh):
        out["other size"] = _answer(lambda: enter(AbstractMesh((4,), ("x",))))
        out["same size"] = _answer(lambda: enter(AbstractMesh((2,), ("z",))))
        out["other names"] = _answer(lambda: arange_under(AbstractMesh((2,), ("y",))))
        out["explicit"] = _answer(lambda: arange_under(
            AbstractMesh((2,), ("x",), (AxisType.Explicit,))))
        out["nested other size"] = _answer(lambda: [
            enter(AbstractMesh((2,), ("y",))),
            _nested(sh, AbstractMesh((2,), ("y",)), AbstractMesh((8,), ("y",)))])
    # no mesh set: any size is taken, eager results stay on one device
    out["no mesh"] = _answer(lambda: [enter(AbstractMesh((4,), ("x",))),
                                      repr(_arange_sharding(jax, AbstractMesh((4,), ("x",))))])
    # Mesh.update, which the tests use to name the mesh they expect
    out["mesh update"] = _answer(lambda: [
        repr(mesh.update(axis_names=("y",), axis_types=(AxisType.Auto,))),
        repr(mesh.update(axis_types=(AxisType.Auto,))),
        mesh.update(axis_names=("y",)) == jax.sharding.Mesh(mesh.devices, ("y",),
                                                           (AxisType.Explicit,)),
        repr(mesh.update(devices=np.array(jax.devices()[2:4])).devices.tolist())])
    out["eager equal"] = _answer(lambda: _eager_equal(jax, mesh))


def _nested(sh, outer, inner):
    with sh.use_abstract_mesh(outer):
        with sh.use_abstract_mesh(inner):
            return "entered"


def _arange_sharding(jax, am):
    with jax.sharding.use_abstract_mesh(am):
        return jax.numpy.arange(8).sharding


def _eager_equal(jax, mesh):
    """The result equals the sharding over the set mesh's devices, as JAX's test checks."""
    sh = jax.sharding
    with jax.set_mesh(mesh):
        with sh.use_abstract_mesh(sh.AbstractMesh((2,), ("y",))):
            a = jax.numpy.arange(8)
    return a.sharding == sh.NamedSharding(
        mesh.update(axis_names=("y",), axis_types=(sh.AxisType.Auto,)), sh.PartitionSpec())


def _jit_over_abstract(jax, out):
    """jit given shardings over an AbstractMesh alone: made and traced as JAX's; called with
    no mesh set, JAX's ValueError (no devices to run on)."""
    import numpy as np
    sh = jax.sharding
    mesh = jax.make_mesh((4,), ("x",), devices=jax.devices()[:4])
    s = sh.NamedSharding(mesh.abstract_mesh, sh.PartitionSpec("x"))
    f = jax.jit(lambda x: x * 2, in_shardings=s, out_shardings=s)
    a = jax.ShapeDtypeStruct((4,), np.float32, sharding=s)
    out["jit abstract shardings traced"] = _answer(lambda: str(f.trace(a).jaxpr))
    out["jit abstract shardings call"] = _answer(
        lambda: f(np.arange(4.0, dtype=np.float32)).tolist())
    with jax.set_mesh(mesh):
        out["jit abstract shardings under set_mesh"] = _answer(
            lambda: _described(f(np.arange(4.0, dtype=np.float32))))


def _described(r):
    return [repr(r.sharding), r.tolist()]


def _traces(jax, out):
    """How many times a jit traces, called under set_mesh then under use_abstract_mesh of
    the same mesh, of another kind of device, of other names (JAX's trace context holds the
    abstract mesh: a cache key)."""
    sh = jax.sharding
    mesh = jax.make_mesh((2,), ("x",), axis_types=(sh.AxisType.Explicit,),
                         devices=jax.devices()[:2])
    am = mesh.abstract_mesh
    for name, other in [("same", am),
                        ("other device", am.update(abstract_device=sh.AbstractDevice(
                            "tpu", None, "tpu"))),
                        ("other names", sh.AbstractMesh((2,), ("y",)))]:
        traced = []

        @jax.jit
        def f(x):
            traced.append(1)
            return x

        def calls():
            with jax.set_mesh(mesh):
                inp = jax.numpy.arange(8)
                f(inp)
                with sh.use_abstract_mesh(other):
                    f(inp)
                f(inp)
            return len(traced)
        out[f"traces {name}"] = _answer(calls)


def _meshes_one_after_another(jax, out):
    """A scatter-add (its combiner a program of its own, typed by the mesh in effect) under
    set_mesh of two devices, then of four, then of two: each over its own mesh."""
    import numpy as np
    sh = jax.sharding
    answers = []

    def scatter(shape, names):
        mesh = jax.make_mesh(shape, names, axis_types=(sh.AxisType.Explicit,) * len(names),
                             devices=jax.devices()[:int(np.prod(shape))])
        with jax.set_mesh(mesh):
            x = jax.device_put(np.arange(8.0), sh.PartitionSpec())
            y = jax.jit(lambda v: v.at[np.array([0, 5])].add(1.0))(x)
            answers.append([str(jax.typeof(y)), repr(y.sharding), y.tolist()])

    def all_three():
        scatter((2,), ("x",))
        scatter((2, 2), ("x", "y"))
        scatter((2,), ("x",))
        return answers
    out["scatter under meshes of two sizes"] = _answer(all_three)
