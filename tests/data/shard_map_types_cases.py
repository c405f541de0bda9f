"""The cases that reference/make_shard_map_types_reference.py runs on JAX 0.10.2 and
tests/sharding/test_shard_map_types.py on jxkernel: the types of values in a shard_map body
a learner reads (`jax.typeof(x).mat`), and the collectives and errors that change them:
`all_gather(..., to='invarying')` (a result the same on every device of its axes, its
gradient each device's block), ... `run(jax)` takes the `jax` module (real or jxkernel,
with 8 CPU devices) and returns JSON data. Every value is exact (small integer-valued
floats, text)."""


from case_answer import answer as _answer


def run(jax) -> dict:
    out = {}
    _all_gather_invarying(jax, out)
    _invarying(jax, out)
    _summed_spec_checks(jax, out)
    _summed_spec_rewrites(jax, out)
    _abstract_mesh(jax, out)
    _pcast_outside(jax, out)
    _eager_body_mesh(jax, out)
    _vmap_spmd_error(jax, out)
    _eager_refusals(jax, out)
    _vmap_explicit(jax, out)
    _size_one_axes(jax, out)
    _pcast_key(jax, out)
    _linearize_in_body(jax, out)
    _custom_vjp_in_body(jax, out)
    _dce_of_shard_map(jax, out)
    _partly_manual_explicit(jax, out)
    _eval_shape_in_body(jax, out)
    _partly_manual_bare_spec(jax, out)
    return out


def _mesh(jax, shape, names, explicit=False):
    """A mesh over the first devices, its axes Auto (JAX's make_mesh's default is
    Explicit) or Explicit."""
    import math
    kind = jax.sharding.AxisType.Explicit if explicit else jax.sharding.AxisType.Auto
    return jax.make_mesh(shape, names, axis_types=(kind,) * len(names),
                         devices=jax.devices()[:math.prod(shape)])


def _all_gather_invarying(jax, out):
    """all_gather(..., to='invarying'): its type in the body, its values, the gradient
    through it (each device's block of the cotangent) and that gradient's sharding."""
    import numpy as np
    jnp, P, lax = jax.numpy, jax.sharding.PartitionSpec, jax.lax
    mesh = _mesh(jax, (4,), ("x",))
    seen = {}

    def body(a):
        y = lax.all_gather(a, "x", tiled=True, to="invarying")
        seen["type"] = jax.typeof(y).str_short(True)
        seen["varying"] = sorted(jax.typeof(y).mat.varying)
        return y

    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P()))
    x = jnp.arange(8.)
    out["all_gather invarying value"] = _answer(lambda: f(x).tolist())
    out["all_gather invarying type"] = seen.get("type")
    out["all_gather invarying varying"] = seen.get("varying")
    out["all_gather invarying jaxpr names it"] = _answer(
        lambda: "all_gather_invariant" in str(jax.make_jaxpr(f)(x)))
    grad = jax.jit(jax.grad(lambda v: (f(v) * jnp.arange(8.)).sum()))
    out["all_gather invarying grad"] = _answer(lambda: grad(x).tolist())
    out["all_gather invarying grad spec"] = _answer(lambda: repr(grad(x).sharding.spec))
    out["all_gather invarying second derivative"] = _answer(
        lambda: jax.grad(lambda v: (f(v) ** 2).sum())(x).tolist())

    mesh2 = _mesh(jax, (2, 2), ("x", "y"))
    seen2 = {}

    def body2(a):
        c = lax.all_gather(a, "x", axis=0, tiled=True, to="invarying")
        d = lax.all_gather(a, "y", axis=-1, tiled=False, to="invarying")
        seen2["c"] = jax.typeof(c).str_short(True)
        seen2["d"] = jax.typeof(d).str_short(True)
        return c, d

    g = jax.jit(jax.shard_map(body2, mesh=mesh2, in_specs=P("x", "y"),
                              out_specs=(P(None, "y"), P("x"))))
    a = jnp.arange(16.).reshape(4, 4)
    out["all_gather invarying two axes"] = _answer(
        lambda: [v.tolist() for v in g(a)])
    out["all_gather invarying two axes types"] = [seen2.get("c"), seen2.get("d")]
    out["all_gather invarying groups"] = _answer(lambda: jax.jit(jax.shard_map(
        lambda v: lax.all_gather(v, "x", to="invarying", axis_index_groups=[[0, 1], [2, 3]]),
        mesh=mesh, in_specs=P("x"), out_specs=P()))(x).tolist())


def _invarying(jax, out):
    """`typeof(x).mat.invarying(mesh)`: the manual axes a value is the same along."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    get_abstract_mesh = jax.sharding.get_abstract_mesh
    mesh = _mesh(jax, (2,), ("x",), explicit=True)
    seen = {}
    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(8), P())
        out["mat invarying outside"] = _answer(
            lambda: sorted(jax.typeof(arr).mat.invarying(mesh)))

        @jax.jit
        @jax.shard_map(out_specs=P())
        def f(x):
            am = get_abstract_mesh()
            seen["in"] = sorted(jax.typeof(x).mat.invarying(am))
            y = x * 2
            seen["out"] = sorted(jax.typeof(y).mat.invarying(am))
            seen["varying in"] = sorted(jax.typeof(jax.lax.pcast(x, "x", to="varying"))
                                        .mat.invarying(am))
            return y
        out["mat invarying body runs"] = _answer(lambda: f(arr).tolist())
    out["mat invarying body"] = seen


def _summed_spec_checks(jax, out):
    """The errors for specs with unreduced or reduced axes a learner meets first: a mesh of
    Auto axes, a shard_map manual over some axes only."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2, 1), ("x", "y"))
    ident = lambda x: x       # noqa: E731
    out["unreduced in_specs auto mesh"] = _answer(lambda: jax.shard_map(
        ident, mesh=mesh, in_specs=P(unreduced={"x"}), out_specs=P())(np.arange(8)))
    out["reduced out_specs auto mesh"] = _answer(lambda: jax.shard_map(
        ident, mesh=mesh, in_specs=P(), out_specs=P(reduced={"y"}))(np.arange(8)))
    out["unreduced in_specs partial manual"] = _answer(lambda: jax.shard_map(
        ident, mesh=mesh, in_specs=P(unreduced={"x"}), out_specs=P(),
        axis_names={"x"})(np.arange(8)))
    emesh = _mesh(jax, (2, 1), ("x", "y"), explicit=True)
    out["reduced out_specs partial manual explicit"] = _answer(lambda: jax.shard_map(
        ident, mesh=emesh, in_specs=P(), out_specs=P(reduced={"x"}),
        axis_names={"x"})(np.arange(8)))


def _summed_spec_rewrites(jax, out):
    """Two ways to a shard_map without unreduced specs (jxkernel refused such specs before
    its bodies typed the sets: tests/data/unreduced_cases.py has them now), run: reshard an
    unreduced argument first; psum a result inside the body and give out_specs without
    unreduced axes."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2,), ("x",), explicit=True)
    put = lambda v, spec: jax.device_put(v, jax.sharding.NamedSharding(mesh, spec))  # noqa: E731
    a = put(jnp.arange(8.).reshape(2, 4), P(None, "x"))
    b = put(jnp.ones((4, 1)), P("x", None))
    x = put(jnp.arange(8.), P("x"))

    def resharded_first():
        y = jnp.dot(a, b, out_sharding=P(None, None, unreduced={"x"}))
        return jax.shard_map(lambda t: t * 2, in_specs=P(None, None), out_specs=P(None, None))(
            jax.reshard(y, P(None, None)))

    def summed_inside():
        return jax.shard_map(lambda t: jax.lax.psum(jnp.sum(t, keepdims=True), ("x",)),
                             in_specs=P("x"), out_specs=P(None))(x)
    with jax.set_mesh(mesh):
        for name, f in (("reshard an unreduced argument first", resharded_first),
                        ("psum a result inside the body", summed_inside)):
            out[f"unreduced spec rewrite: {name}"] = _answer(
                lambda: [jax.jit(f)().tolist(), str(jax.typeof(jax.jit(f)()))])


def _abstract_mesh(jax, out):
    """shard_map over an AbstractMesh: run on the devices its arguments are placed on (eager
    or under jit), and JAX's errors where they are not on a mesh of its shape."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    np_inp = np.arange(16).reshape(8, 2)
    arr = jax.device_put(np_inp, NamedSharding(mesh, P("x", "y")))

    def f(x):
        return jax.shard_map(lambda x: x * 2, mesh=mesh.abstract_mesh, in_specs=P("x"),
                             out_specs=P("x"))(x)

    def result(y):
        return [y.tolist(), repr(y.sharding.spec), y.sharding.mesh == mesh]
    out["abstract mesh jit"] = _answer(lambda: result(jax.jit(f)(arr)))
    out["abstract mesh eager"] = _answer(lambda: result(f(arr)))
    out["abstract mesh eager numpy and array"] = _answer(lambda: [result(y) for y in jax.shard_map(
        lambda x, y: (x, y), mesh=mesh.abstract_mesh, in_specs=P("x"),
        out_specs=P("x"))(np_inp, arr)])
    m1 = Mesh(np.array(jax.devices()[:2]), ("x",))
    m2 = Mesh(np.array(jax.devices()[:2]), ("y",))
    a1 = jax.device_put(np.arange(8), NamedSharding(m1, P("x")))
    a2 = jax.device_put(np.arange(8), NamedSharding(m2, P("y")))
    ident = lambda x: x    # noqa: E731
    out["abstract mesh unplaced argument"] = _answer(lambda: jax.shard_map(
        ident, mesh=m1.abstract_mesh, in_specs=P("x"), out_specs=P("x"))(jnp.arange(8)))
    out["abstract mesh numpy argument"] = _answer(lambda: jax.shard_map(
        ident, mesh=m1.abstract_mesh, in_specs=P("x"), out_specs=P("x"))(np.arange(8)))
    out["abstract mesh other shape"] = _answer(lambda: jax.shard_map(
        ident, mesh=m2.abstract_mesh, in_specs=P("y"), out_specs=P("y"))(a1))
    out["abstract mesh arguments disagree"] = _answer(lambda: jax.shard_map(
        lambda x, y: (x, y), mesh=m1.abstract_mesh, in_specs=P("x"), out_specs=P("x"))(a1, a2))
    out["mesh not a mesh"] = _answer(lambda: jax.shard_map(
        ident, mesh=3, in_specs=P("x"), out_specs=P("x"))(a1))
    with jax.set_mesh(m1):
        out["abstract mesh under set_mesh"] = _answer(lambda: jax.jit(jax.shard_map(
            lambda x: x + 1, mesh=m1.abstract_mesh, in_specs=P(), out_specs=P()))(
                np.arange(4)).tolist())


def _pcast_outside(jax, out):
    """pcast(..., to='varying') where no shard_map body types it: JAX's errors eagerly, under
    jit and under vmap, and for an axis the body is not manual over; none for a
    check_vma=False body's own axes."""
    import numpy as np
    P, lax = jax.sharding.PartitionSpec, jax.lax
    inp = np.arange(8.)
    vary = lambda axes: lambda x: lax.pcast(x, axes, to="varying")   # noqa: E731
    out["pcast varying eager"] = _answer(lambda: vary("x")(inp))
    out["pcast varying jit unbound"] = _answer(lambda: jax.jit(vary("x"))(inp))
    out["pcast varying vmap"] = _answer(lambda: jax.vmap(vary("i"), axis_name="i")(inp))
    mesh = _mesh(jax, (2,), ("x",), explicit=True)
    with jax.set_mesh(mesh):
        f = jax.shard_map(vary("x"), in_specs=P(), out_specs=P("x"))
        out["pcast varying body"] = _answer(
            lambda: [f(inp).tolist(), repr(f(inp).sharding.spec)])
        out["pcast varying body grad"] = _answer(
            lambda: jax.jit(jax.grad(lambda x: f(x).sum()))(inp).tolist())
    mesh2 = _mesh(jax, (2, 2), ("x", "y"), explicit=True)
    with jax.set_mesh(mesh2):
        g = jax.jit(jax.shard_map(vary("y"), in_specs=P(), out_specs=P("x"), axis_names={"x"},
                                  check_vma=False))
        out["pcast varying not manual axis"] = _answer(lambda: g(np.arange(8)).tolist())
        h = jax.jit(jax.shard_map(vary("x"), in_specs=P(), out_specs=P("x"),
                                  check_vma=False))
        out["pcast varying check_vma false"] = _answer(lambda: h(np.arange(8)).tolist())


def _eager_body_mesh(jax, out):
    """get_abstract_mesh() in a shard_map body run eagerly: the mesh with the body's axes
    Manual, as under jit."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2, 2), ("x", "y"), explicit=True)
    seen = {}
    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(16).reshape(8, 2), P("x", "y"))

        def body(x):
            am = jax.sharding.get_abstract_mesh()
            seen.setdefault("manual", []).append(list(am.manual_axes))
            seen.setdefault("varying", []).append(sorted(jax.typeof(x * 2).mat.varying))
            return x * 2
        f = jax.shard_map(body, out_specs=P("x", "y"))
        out["eager body result"] = _answer(lambda: [f(arr).tolist(), repr(f(arr).sharding.spec)])
        out["jit body result"] = _answer(lambda: jax.jit(f)(arr).tolist())
        out["after body manual axes"] = list(jax.sharding.get_abstract_mesh().manual_axes)
    out["eager and jit body mesh"] = seen


def _vmap_spmd_error(jax, out):
    """vmap with spmd_axis_name of a shard_map whose specs name that axis: JAX's error, and
    the value under `jax._src.config.disable_vmap_shmap_error()` (jax.config's option)."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("i",))

    def f(x, y):
        return jax.shard_map(lambda x, y: x + jax.lax.all_gather(y, "i", tiled=True),
                             mesh=mesh, in_specs=(P(None), P("i")), out_specs=P(None),
                             check_vma=False)(x, y)
    y, xs = jnp.arange(8), jnp.arange(32).reshape(4, 8)
    g = jax.vmap(f, in_axes=(0, None), spmd_axis_name="i")
    out["vmap spmd axis in in_specs"] = _answer(lambda: g(xs, y).tolist())
    jax.config.update("jax_disable_vmap_shmap_error", True)
    try:
        out["vmap spmd axis error disabled"] = _answer(lambda: g(xs, y).tolist())
    finally:
        jax.config.update("jax_disable_vmap_shmap_error", False)


def _eager_refusals(jax, out):
    """What a shard_map body run eagerly refuses, in JAX's words: device_put to a named
    device (under jit it is ignored), and making a Ref (under jit it is fine)."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))
    f = jax.shard_map(lambda x: x + jax.device_put(1), mesh=mesh, in_specs=P("i"),
                      out_specs=P("i"))
    g = jax.shard_map(lambda x: x + jax.device_put(1, jax.devices()[0]), mesh=mesh,
                      in_specs=P("i"), out_specs=P("i"))
    x = jnp.arange(8.)
    out["device_put eager body"] = _answer(lambda: f(x).tolist())
    out["device_put device eager body"] = _answer(lambda: g(x).tolist())
    out["device_put device jit body"] = _answer(lambda: jax.jit(g)(x).tolist())
    emesh = _mesh(jax, (2,), ("x",), explicit=True)
    with jax.set_mesh(emesh):
        a = jax.device_put(np.arange(8), P("x"))

        def r(v):
            return jax.freeze(jax.new_ref(v))
        out["new_ref eager body"] = _answer(
            lambda: jax.shard_map(r, out_specs=P("x"), check_vma=False)(a).tolist())
        out["new_ref jit in eager body"] = _answer(
            lambda: jax.shard_map(jax.jit(r), out_specs=P("x"), check_vma=False)(a).tolist())


def _vmap_explicit(jax, out):
    """vmap of a shard_map over inputs whose mapped dimension is split over an Explicit mesh
    axis: the results keep that axis on the batch dimension (their type and sharding), and
    the body may not name it."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2, 2), ("data", "model"), explicit=True)
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.arange(16).reshape(4, 4), P("data", "model"))
        f = jax.shard_map(lambda v: v * 2, in_specs=P("model"), out_specs=P("model"))

        def result(y):
            return [y.tolist(), repr(y.sharding.spec), jax.typeof(y).str_short(True)]
        out["vmap explicit axis jit"] = _answer(lambda: result(jax.jit(jax.vmap(f))(x)))
        out["vmap explicit axis eager"] = _answer(lambda: result(jax.vmap(f)(x)))
        g = jax.shard_map(lambda v: jax.lax.psum(v, "model"), in_specs=P("model"),
                          out_specs=P(None))
        out["vmap explicit axis psum"] = _answer(lambda: result(jax.jit(jax.vmap(g))(x)))
        h = jax.shard_map(lambda v: v, in_specs=P("model"), out_specs=P("model"))
        y = jax.device_put(jnp.arange(16).reshape(4, 4), P("model", "data"))
        out["vmap explicit axis named in specs"] = _answer(
            lambda: result(jax.jit(jax.vmap(h))(y)))


def _size_one_axes(jax, out):
    """Under jax.remove_size_one_mesh_axis_from_type(True): a body's inputs vary over no
    mesh axis of size 1 (in_specs naming one match an argument whose type has none), and
    pcast to 'varying' over such an axis is nothing."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    seen = {}
    jax.config.update("jax_remove_size_one_mesh_axis_from_type", True)
    try:
        mesh = _mesh(jax, (2, 1), ("x", "y"), explicit=True)
        with jax.set_mesh(mesh):
            arr = jax.device_put(np.arange(16).reshape(8, 2), P("x", "y"))

            @jax.jit
            @jax.shard_map(in_specs=P("x", "y"), out_specs=P())
            def f(x):
                seen["in"] = sorted(jax.typeof(x).mat.varying)
                y = jax.lax.psum(x, "x")
                seen["psum"] = sorted(jax.typeof(y).mat.varying)
                return y
            out["size one in_specs"] = _answer(
                lambda: [f(arr).tolist(), repr(f(arr).sharding.spec)])
        out["size one body types"] = seen
        mesh1 = _mesh(jax, (1,), ("x",), explicit=True)
        with jax.set_mesh(mesh1):
            g = jax.jit(lambda x: jax.lax.pcast(x, "x", to="varying"))
            out["size one pcast jaxpr"] = _answer(
                lambda: "pvary" in str(jax.make_jaxpr(g)(np.arange(8))))
    finally:
        jax.config.update("jax_remove_size_one_mesh_axis_from_type", False)


def _pcast_key(jax, out):
    """pcast of a PRNG key to 'varying' in a body: its type, and the same key on each device
    (a key array's data is its words)."""
    import numpy as np
    P, lax = jax.sharding.PartitionSpec, jax.lax
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("dp",))
    seen = {}

    def body(k):
        v = lax.pcast(k, ("dp",), to="varying")
        seen["type"] = jax.typeof(v).str_short(True)
        return jax.random.key_data(v)
    f = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P("dp"))
    out["pcast key words"] = _answer(lambda: f(jax.random.key(42)).tolist())
    out["pcast key type"] = seen.get("type")
    g = jax.shard_map(lambda k, y: jax.random.uniform(lax.pcast(k, ("dp",), to="varying"),
                                                      y.shape) * 0 + y,
                      mesh=mesh, in_specs=(P(), P("dp")), out_specs=P("dp"))
    out["pcast key then draw"] = _answer(
        lambda: g(jax.random.key(0), jax.numpy.ones((4, 1))).tolist())


def _linearize_in_body(jax, out):
    """jax.linearize of an invariant primal in a body, its f_jvp given a varying tangent:
    JAX's error and its pcast hint; with the primal made varying first, the values."""
    import numpy as np
    jnp, P, lax = jax.numpy, jax.sharding.PartitionSpec, jax.lax
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))

    def f(x):
        return jnp.mean(x ** 2)

    def m(vary, p, t):
        if vary:
            p = lax.pcast(p, "x", to="varying")
        _, fwd = jax.linearize(f, p)
        return jax.linear_transpose(fwd, p)(fwd(t))

    for vary in (False, True):
        g = jax.shard_map(lambda t: m(vary, jnp.array([1.]), t)[0], mesh=mesh,
                          in_specs=P("x"), out_specs=P("x"))
        out[f"linearize tangent varying, primal varying={vary}"] = _answer(
            lambda: g(jnp.ones((2,))).tolist())


def _custom_vjp_in_body(jax, out):
    """A custom_vjp whose bwd returns a cotangent invariant over an axis its input varies
    over: JAX's ValueError (the manual axis types do not match)."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))

    @jax.custom_vjp
    def f(x):
        return jax.lax.psum(x, "i")

    def f_bwd(_, g):
        return (jax.lax.psum(g, "i"),)
    f.defvjp(lambda x: (f(x), None), f_bwd)
    g = jax.shard_map(lambda x: f(f(x)), mesh=mesh, in_specs=P("i"), out_specs=P())
    out["custom_vjp bwd invariant cotangent"] = _answer(
        lambda: jax.value_and_grad(lambda x: g(x).sum())(jnp.ones(4))[0].tolist())


def _dce_of_shard_map(jax, out):
    """pe.dce_jaxpr of a jaxpr holding one shard_map: the inputs each choice of used results
    keeps, and the equations left in the body (JAX's shard_map dce rule)."""
    import importlib
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    pe = importlib.import_module(jax.__name__ + ".interpreters.partial_eval")
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))

    def f(x, y, z):
        g = jax.shard_map(lambda y, z: (jnp.sin(x), jnp.cos(z), jnp.tan(y)), mesh=mesh,
                          in_specs=(P("i", "j"), P(None, "i")),
                          out_specs=(P(None, None), P(None, "i"), P("i", "j")))
        return g(y, z)
    jaxpr = jax.make_jaxpr(f)(jnp.zeros((4, 4)), jnp.zeros((8, 8)), jnp.zeros((16, 16))).jaxpr
    for used in ([True, True, True], [True, True, False], [True, False, True],
                 [True, False, False], [False, True, False]):
        def run(used=used):
            pruned, used_inputs = pe.dce_jaxpr(jaxpr, used)
            body = pruned.eqns[0].params["jaxpr"]
            body = getattr(body, "jaxpr", body)
            return [used_inputs, [e.primitive.name for e in body.eqns],
                    [repr(s) for s in pruned.eqns[0].params["in_specs"]]]
        out[f"dce shard_map used {used}"] = _answer(run)


def _partly_manual_explicit(jax, out):
    """A shard_map manual over some Explicit axes only: its inputs' specs inferred over the
    manual axes alone, the values in the body typed over the Explicit axes left (their
    sharding's spec), and its results split over both."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2, 2), ("x", "y"), explicit=True)
    seen = {}

    def note(name, v):
        t = jax.typeof(v)
        seen[name] = [repr(t.sharding.spec), sorted(t.mat.varying), str(t)]

    def body(v):
        note("in", v)
        w = v * 2
        note("mul", w)
        return w

    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(16.).reshape(8, 2), P("x", "y"))
        for name, spec, axes in (("x", P("x"), {"x"}), ("y", P(None, "y"), {"y"})):
            seen.clear()
            f = jax.jit(jax.shard_map(body, out_specs=spec, axis_names=axes))
            out[f"partly manual explicit over {name}"] = _answer(lambda: [
                repr(f(arr).sharding.spec), np.asarray(f(arr)).tolist(), dict(seen)])

    # lowered: the body's values constrained to their type over the Explicit axes left, the
    # shard_map's results left to its out_specs (JAX's lower_with_sharding_in_types)
    with jax.set_mesh(mesh):
        g = jax.jit(jax.shard_map(lambda v: v * v, out_specs=P("x", None), axis_names={"x"}))

        def constraints():
            text = g.lower(arr).as_text()
            return [line.split("=", 1)[1].split(":")[0].split(None, 2)[2]
                    for line in text.splitlines() if "sdy.sharding_constraint" in line]
        out["partly manual explicit constraints"] = _answer(constraints)

    # a value typed over Explicit axes closed over by a body manual over all of them: JAX's
    # NotImplementedError (eager and under jit); passed as an argument, it runs
    emesh = _mesh(jax, (2,), ("x",), explicit=True)
    with jax.set_mesh(emesh):
        w = jax.numpy.ones((2, 4), dtype=np.float32)
        x = jax.device_put(jax.numpy.ones((4, 4), dtype=np.float32), P("x"))
        closing = jax.shard_map(lambda xi: (w * xi).sum(-1), in_specs=P("x"), out_specs=P("x"))
        out["closed over explicit eager"] = _answer(lambda: closing(x).tolist())
        out["closed over explicit jit"] = _answer(lambda: jax.jit(closing)(x).tolist())
        out["passed explicit"] = _answer(lambda: jax.shard_map(
            lambda w, xi: (w * xi).sum(-1), in_specs=(P(), P("x")), out_specs=P("x"))(
                w, x).tolist())


def _eval_shape_in_body(jax, out):
    """eval_shape inside a body: a ShapeDtypeStruct with the manual axes its value varies
    over (its `manual_axis_type`); full_like of it varies alike; a lax.map whose carry
    varies, eagerly and under jit (the eager body's steps run with its types erased)."""
    import numpy as np
    P, lax, jnp = jax.sharding.PartitionSpec, jax.lax, jax.numpy
    mesh = _mesh(jax, (2,), ("x",))
    seen = {}

    @jax.shard_map(mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x"))
    def g(p, x):
        def one(xi):
            s = jax.eval_shape(lambda a, b: jnp.dot(a, b), p, xi)
            seen["sds"] = [repr(s.manual_axis_type), sorted(jax.typeof(s).mat.varying),
                           sorted(jax.typeof(lax.full_like(s, 1)).mat.varying)]
            _, pull = jax.vjp(lambda a, b: jnp.dot(a, b), p, xi)
            return pull(lax.full_like(s, 1))[1]
        return lax.map(one, x)

    p, x = np.arange(3.), np.arange(12.).reshape(4, 3)
    out["eval_shape in body eager"] = _answer(lambda: [np.asarray(g(p, x)).tolist(),
                                                       dict(seen)])
    out["eval_shape in body jit"] = _answer(lambda: np.asarray(jax.jit(g)(p, x)).tolist())

    # searchsorted (jnp.histogram's) in a body: its loop's carry varies as the queries do
    emesh = _mesh(jax, (2,), ("data",), explicit=True)
    with jax.set_mesh(emesh):
        xs = jax.device_put(np.arange(8 * 4 * 2).reshape(8, 4, 2), P("data"))
        edges = jnp.histogram_bin_edges(xs, bins=10)
        hist = jax.shard_map(lambda v, e: jax.vmap(lambda q: jnp.histogram(q, bins=e)[0])(v),
                             in_specs=(P("data"), P()), out_specs=P("data"))
        out["histogram in body"] = _answer(lambda: [np.asarray(hist(xs, edges)).tolist(),
                                                    np.asarray(jax.jit(hist)(xs, edges)).tolist()])

    # a jit whose arguments are not placed, with shard_maps inside, lowered with debug_info
    # (as_text's other lowering): partitioned over their mesh, as its call is
    mesh8 = jax.sharding.Mesh(np.array(jax.devices()), ("i",))

    def two_maps(v):
        for _ in range(2):
            v = jax.shard_map(lambda b: jnp.cos(b * 3.0), mesh=mesh8, in_specs=P("i"),
                              out_specs=P("i"))(v)
        return v

    out["shard_map lowered with debug_info"] = _answer(lambda: jax.jit(two_maps).lower(
        jnp.arange(8.)).as_text("stablehlo", debug_info=True).count("sdy.manual_computation"))

    # a shard_map inside a partly manual body given the mesh again: JAX's error (the
    # context there is the mesh with the body's axes Manual)
    amesh = _mesh(jax, (2, 2), ("i", "j"))
    inner = jax.shard_map(lambda b: b * b, mesh=amesh, in_specs=P(None, "j"),
                          out_specs=P(None, "j"))
    outer = jax.jit(jax.shard_map(inner, mesh=amesh, in_specs=P("i", None),
                                  out_specs=P("i", None), check_vma=False, axis_names={"i"}))

    def mesh_again():
        try:
            outer(jnp.arange(32.).reshape(4, 8))
        except ValueError as e:
            import re
            return ["ValueError", bool(re.search(
                r"^The context mesh AbstractMesh\('i': 2, 'j': 2, axis_types=\(Manual, Auto\)"
                r".* should match the mesh passed to shard_map Mesh\('i': 2, 'j': 2", str(e)))]
        return "ran"
    out["shard_map given its mesh again in a body"] = mesh_again()

    # with_sharding_constraint naming a manual axis inside a body: JAX's error
    def constrained_body(b):
        return jax.lax.with_sharding_constraint(
            b, jax.sharding.NamedSharding(amesh, P("i", "j"))) * 2

    for name, axes in (("partly", {"i"}), ("wholly", {"i", "j"})):
        f = jax.jit(jax.shard_map(constrained_body, mesh=amesh, in_specs=P("i", None),
                                  out_specs=P("i", None), check_vma=False, axis_names=axes))
        out[f"constraint on a manual axis, {name} manual"] = _answer(
            lambda: np.asarray(f(jnp.arange(32.).reshape(4, 8))).tolist())


def _partly_manual_bare_spec(jax, out):
    """A bare PartitionSpec constraint in a body manual over some Auto axes, under jit with no
    set_mesh (shard_map_test.py's `test_partial_auto`): resolved over the body's mesh (JAX's
    AbstractMesh, its axes Manual and Auto), constrained over the Auto axis inside the
    manual computation, the values those of x * x."""
    import numpy as np
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = _mesh(jax, (2, 2), ("i", "j"))
    seen = {}

    def body(x):
        seen["axis types"] = [t.name for t in x.aval.sharding.mesh.axis_types]
        x = jax.lax.with_sharding_constraint(x, P(None, "j"))
        return x * x

    @jax.jit
    def f(x):
        x = jax.shard_map(body, mesh=mesh, in_specs=P("i", None), out_specs=P("i", None),
                          axis_names=frozenset({"i"}))(x)
        return jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("i", "j")))

    v = jax.device_put(np.arange(32.).reshape(4, 8), NamedSharding(mesh, P("i", "j")))

    def lowered():
        text = f.lower(v).as_text()
        return [[line.split("in_shardings=", 1)[1].split(" (")[0] for line in text.splitlines()
                 if "sdy.manual_computation" in line],
                [line.split("sdy.sharding_constraint ", 1)[1].split(None, 1)[1].split(" :")[0]
                 for line in text.splitlines() if "sdy.sharding_constraint %arg" in line]]
    out["partly manual bare spec lowered"] = _answer(lowered)
    out["partly manual bare spec values"] = _answer(lambda: [
        np.asarray(f(v)).tolist(), repr(f(v).sharding.spec), dict(seen)])
