"""The cases that reference/make_unreduced_reference.py runs on JAX 0.10.2 and
tests/sharding/test_unreduced.py on jxkernel: unreduced and reduced mesh axes in a
PartitionSpec and in the types of values over Explicit axes (JAX's tests/pjit_test.py reads
them): the spec's checks, the types dot_general's `out_sharding=P(..., unreduced=...)` and
`add` give, the ShardingTypeErrors a learner meets, the values of each device's summand and
of a reshard that sums them. `run(jax)` takes the `jax` module (real or jxkernel, with 8 CPU
devices) and returns JSON data."""


from case_answer import answer as _answer


def _traced(jax, fn, *args) -> str:
    """'traced' once jit has traced `fn` (its typing rules ran), else the error."""
    jax.jit(fn).trace(*args)
    return "traced"


def run(jax) -> dict:
    out = {}
    _spec_checks(jax, out)
    _dot_general(jax, out)
    _elementwise(jax, out)
    _placed(jax, out)
    _gradients(jax, out)
    _shard_map_bodies(jax, out)
    return out


def _spec_checks(jax, out):
    """PartitionSpec's own checks of its unreduced and reduced sets, and its text."""
    P = jax.sharding.PartitionSpec
    cases = {
        "none_in_unreduced": lambda: repr(P(unreduced={None})),
        "none_in_reduced": lambda: repr(P(reduced={None})),
        "overlap": lambda: repr(P(unreduced={"x"}, reduced={"x"})),
        "partition_overlaps_unreduced": lambda: repr(P("x", unreduced={"x"})),
        "tuple_partition_overlaps_reduced": lambda: repr(P(("x", "y"), reduced={"y"})),
        "list_unreduced": lambda: repr(P(unreduced=["x"])),
        "repr": lambda: repr(P("x", None, unreduced={"y"})),
        "repr_both": lambda: repr(P(unreduced={"y"}, reduced={"x"})),
        "index_with_unreduced": lambda: repr(P("x", unreduced={"y"})[0]),
        "iter_with_reduced": lambda: repr(list(P("x", reduced={"y"}))),
        "partitions": lambda: repr(P("x", unreduced={"y"}).partitions),
        "len": lambda: len(P("x", None, unreduced={"y"})),
        "add_tuple": lambda: repr(P("x", unreduced={"y"}) + ("z",)),
        "radd_tuple": lambda: repr(("z",) + P("x", reduced={"y"})),
        "add_p": lambda: repr(P("x", unreduced={"y"}) + P(None, reduced={"z"})),
    }
    for name, fn in cases.items():
        out[f"spec {name}"] = _answer(fn)


def _mesh(jax, shape, names):
    AxisType = jax.sharding.AxisType
    return jax.make_mesh(shape, names, axis_types=(AxisType.Explicit,) * len(names),
                         devices=jax.devices()[:int(__import__("math").prod(shape))])


def _dot_general(jax, out):
    """einsum with out_sharding unreduced over the contracted axes: its type inside jit, each
    device's summand, the reshard that sums them; and its ShardingTypeErrors."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2,), ("x",))
    with jax.set_mesh(mesh):
        np_inp = np.arange(4).reshape(2, 2)
        x = jax.device_put(np_inp, P(None, "x"))
        y = jax.device_put(np_inp, P("x", None))
        seen = {}

        @jax.jit
        def f(x, y):
            o = jnp.einsum("ab,bc->ac", x, y, out_sharding=P(None, None, unreduced={"x"}))
            seen["spec"] = repr(o.aval.sharding.spec)
            seen["type"] = o.aval.str_short(True)
            return o

        o = f(x, y)
        out["einsum spec in jit"] = seen["spec"]
        out["einsum type in jit"] = seen["type"]
        out["einsum result spec"] = repr(o.sharding.spec)
        out["einsum shard shape"] = list(o.sharding.shard_shape(o.shape))
        out["einsum summands"] = [np.asarray(s.data).tolist() for s in o.addressable_shards]
        out["einsum resharded"] = np.asarray(
            jax.sharding.reshard(o, P(None, None))).tolist()
        out["einsum lowered unreduced count"] = f.lower(x, y).as_text().count('unreduced={"x"}')

    mesh = _mesh(jax, (2, 2, 1), ("x", "y", "z"))
    with jax.set_mesh(mesh):
        np_inp = np.arange(16).reshape(8, 2)
        xy = jax.device_put(np_inp, P("x", "y"))
        yT = jax.device_put(np_inp.T, P("y", None))
        rT = jax.device_put(np_inp.T, P(None, None))
        xn = jax.device_put(np_inp, P("x", None))

        def mm(a, b, spec):
            return _traced(jax, lambda a, b: jnp.einsum("xy,yz->xz", a, b, out_sharding=spec),
                           a, b)

        def twice(a, b):
            z = jnp.einsum("xy,yz->xz", a, b, out_sharding=P("x", unreduced={"y"}))
            return jnp.einsum("xy,yz->xz", z, a)
        cases = {
            "not_contracting_axes": lambda: (mm(xy, yT, P("x", unreduced={"z"}))),
            "contracting_differ": lambda: (mm(xy, rT, P("x", unreduced={"y"}))),
            "contracting_unsplit": lambda: (mm(xn, rT, P("x", unreduced={"y"}))),
            "unreduced_operand": lambda: _traced(jax, twice, xy, yT),
        }
        for name, fn in cases.items():
            out[f"dot_general {name}"] = _answer(fn)


def _elementwise(jax, out):
    """add of two unreduced values (unreduced alike, summed once by reshard), add of values
    unreduced over other axes or of one unreduced and one not, and a unary op on one."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2, 2, 1), ("x", "y", "z"))
    with jax.set_mesh(mesh):
        np_inp = np.arange(16.).reshape(8, 2)
        x = jax.device_put(np_inp, P("x", "y"))
        y = jax.device_put(np_inp.T, P("y", None))
        a = jax.device_put(np_inp, P("x", "z"))
        b = jax.device_put(np_inp.T, P("z", None))

        def unreduced_y(p, q):
            return jnp.einsum("xy,yz->xz", p, q, out_sharding=P("x", unreduced={"y"}))

        seen = {}

        @jax.jit
        def added(x, y):
            s = unreduced_y(x, y) + unreduced_y(x, y)
            seen["spec"] = repr(s.aval.sharding.spec)
            o = jax.sharding.reshard(s, P("x"))
            seen["reduced spec"] = repr(o.aval.sharding.spec)
            return o

        out["add result"] = np.asarray(added(x, y)).tolist()
        out["add spec in jit"] = seen["spec"]
        out["add resharded spec in jit"] = seen["reduced spec"]
        out["add lowered unreduced count"] = added.lower(x, y).as_text().count('unreduced={"y"}')

        def other_axes(x, y, a, b):
            m2 = jnp.einsum("xy,yz->xz", a, b, out_sharding=P("x", unreduced={"z"}))
            return unreduced_y(x, y) + m2

        def one_side(x, y, a, b):
            return unreduced_y(x, y) + jnp.einsum("xy,yz->xz", a, b, out_sharding=P("x"))

        def other_side(x, y, a, b):
            return jnp.einsum("xy,yz->xz", a, b, out_sharding=P("x")) + unreduced_y(x, y)
        cases = {
            "add_other_axes": lambda: _traced(jax, other_axes, x, y, a, b),
            "add_one_side": lambda: _traced(jax, one_side, x, y, a, b),
            "add_other_side": lambda: _traced(jax, other_side, x, y, a, b),
            "sin": lambda: _traced(jax, lambda x, y: jnp.sin(unreduced_y(x, y)), x, y),
            "mul_both": lambda: _traced(
                jax, lambda x, y: unreduced_y(x, y) * unreduced_y(x, y), x, y),
        }
        for name, fn in cases.items():
            out[f"elementwise {name}"] = _answer(fn)


def _placed(jax, out):
    """A replicated or split value laid out unreduced (jit's out_shardings=, device_put): the
    first device along the axis holds it, the others zeros; such a sharding is not fully
    replicated. reduce_sum's out_sharding= unreduced over a summed split axis, and its error;
    reshape's refusal of an out_sharding= with unreduced axes."""
    import numpy as np
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2,), ("x",))
    with jax.set_mesh(mesh):
        rep = jnp.arange(4)
        shd = jax.device_put(np.arange(4), P("x"))
        for name, x in (("replicated", rep), ("split", shd)):
            o = jax.jit(lambda v: v, out_shardings=P(unreduced={"x"}))(x)
            out[f"placed jit {name}"] = [repr(o.sharding.spec), o.sharding.is_fully_replicated,
                                         [np.asarray(s.data).tolist() for s in o.addressable_shards]]
            o = jax.device_put(x, P(unreduced={"x"}))
            out[f"placed device_put {name}"] = [repr(o.sharding.spec),
                                                [np.asarray(s.data).tolist() for s in o.addressable_shards]]
        x = jax.device_put(np.arange(8, dtype=np.float32), P("x"))
        o = jax.jit(lambda v: jax.lax.reduce_sum(v, axes=(0,), out_sharding=P(unreduced={"x"})))(x)
        out["reduce_sum scalar"] = [repr(o.sharding.spec), str(jax.typeof(o)),
                                    [float(s.data) for s in o.addressable_shards],
                                    float(jax.sharding.reshard(o, P()))]
    mesh = _mesh(jax, (2, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        arr = jax.device_put(np.arange(16).reshape(8, 2), P("y", None))
        out["reduce_sum not summed axis"] = _answer(lambda: _traced(
            jax, lambda v: jax.lax.reduce_sum(v, axes=(0,), out_sharding=P(None, unreduced={"x"})),
            arr))
        out["reshape out_sharding unreduced"] = _answer(lambda: _traced(
            jax, lambda v: jax.lax.reshape(v, (16,), out_sharding=P(unreduced={"x"})), arr))
    # computed with the axes Auto and laid out unreduced (bincount's and .at[].add's
    # out_sharding=): the type and the sum the summands give (each device's summand is JAX's
    # own choice: jxkernel's computes the value whole and leaves it on the first device)
    mesh = _mesh(jax, (2,), ("x",))
    with jax.set_mesh(mesh):
        a = jnp.ones((4,), dtype=jnp.int32, out_sharding=P("x"))
        count = jax.jit(lambda v: jnp.bincount(v, length=2, out_sharding=P(unreduced={"x"})))
        o = count(a)
        out["bincount unreduced"] = [repr(o.sharding.spec),
                                     jax.sharding.reshard(o, P()).tolist()]
        idx = jnp.array([0, 1, 1, 1], out_sharding=P("x"))
        o = jax.jit(lambda i: jnp.zeros(2, jnp.int32).at[i].add(
            1, out_sharding=P(None, unreduced={"x"})))(idx)
        out["at add unreduced"] = [repr(o.sharding.spec), jax.sharding.reshard(o, P()).tolist()]


def _gradients(jax, out):
    """The gradient with respect to a value reduced over an axis is unreduced over it (the
    cotangent's type swaps the two sets): grad's seed, reduce_sum's and mul's transposes."""
    import numpy as np
    P = jax.sharding.PartitionSpec
    mesh = _mesh(jax, (2,), ("x",))
    with jax.set_mesh(mesh):
        a1 = jax.device_put(np.arange(8.), P(reduced={"x"}))
        a2 = jax.device_put(np.arange(8.), P(reduced={"x"}))
        g1, _ = jax.jit(jax.grad(lambda x, y: (x * y).sum(), argnums=(0, 1)))(a1, a2)
        out["grad of reduced"] = [repr(g1.sharding.spec),
                                  [np.asarray(s.data).tolist() for s in g1.addressable_shards],
                                  np.asarray(jax.sharding.reshard(g1, P())).tolist()]
        out["reduced type"] = str(jax.typeof(a1))
        r = jax.device_put(jax.numpy.arange(4.), P(None, reduced={"x"}))
        g = jax.jit(jax.grad(lambda x: jax.sharding.reshard(x, P("x")).sum()))(r)
        out["grad through reshard of reduced"] = [
            repr(g.sharding.spec), [np.asarray(s.data).tolist() for s in g.addressable_shards]]
        out["reduced times a Python scalar"] = repr(jax.jit(lambda x: x * 2)(a1).sharding.spec)
        out["reduced times replicated"] = _answer(lambda: _traced(
            jax, lambda x, y: x * y, a1, jax.device_put(np.arange(8.), P())))
        sliced = jax.jit(lambda x: jax.lax.slice(x, (0, 0), (4, 3)))
        grad = jax.jit(jax.grad(lambda x: sliced(x).sum()))
        for kind in ("reduced", "unreduced"):
            x = jax.device_put(jax.numpy.arange(16.).reshape(4, 4), P(**{kind: {"x"}}))
            g = grad(x)
            out[f"grad through jit of {kind}"] = [
                repr(g.sharding.spec), np.asarray(jax.sharding.reshard(g, P())).tolist()]


def _shard_map_bodies(jax, out):
    """Inside a check_vma shard_map body the manual axes' sets are types too (typeof(x).mat):
    an in_spec's reduced axes, the cast to varying where such a value meets a varying one
    (its transpose leaves each device's cotangent as its summand: the gradient comes out
    unreduced), an out_spec's unreduced axes (each device's value its summand), pcast's
    casts, psum of an unreduced value, and JAX's errors."""
    import numpy as np
    P, lax, jnp = jax.sharding.PartitionSpec, jax.lax, jax.numpy
    mesh = _mesh(jax, (2,), ("x",))

    def mat(x):
        m = jax.typeof(x).mat
        return [sorted(m.varying), sorted(m.unreduced), sorted(m.reduced)]

    def summands(o):
        return [repr(o.sharding.spec), [np.asarray(s.data).tolist() for s in o.addressable_shards]]

    with jax.set_mesh(mesh):
        a = jax.device_put(np.arange(8.), P("x"))
        r = jax.device_put(np.arange(4.) + 1, P(None, reduced={"x"}))
        seen = {}

        @jax.jit
        @jax.shard_map(out_specs=P("x"))
        def f(x, y):
            seen["in"] = [mat(x), mat(y)]
            z = x * y
            seen["mul"] = mat(z)
            return z

        out["shard_map reduced in"] = _answer(lambda: summands(f(a, r)))
        out["shard_map reduced in types"] = dict(seen)
        out["shard_map reduced in jaxpr"] = _answer(
            lambda: str(jax.make_jaxpr(f)(a, r)).count("reduced_vary_cast"))
        grad = jax.jit(jax.grad(lambda x, y: f(x, y).sum(), argnums=(0, 1)))
        out["shard_map reduced in grad"] = _answer(lambda: [
            summands(g) for g in grad(a, r)])

        @jax.jit
        @jax.shard_map(out_specs=P(unreduced={"x"}))
        def partial_sums(x):
            return x.sum()

        out["shard_map unreduced out"] = _answer(lambda: summands(partial_sums(a)) + [
            float(jax.sharding.reshard(partial_sums(a), P()))])
        for name, arg in (("reduced", r), ("invariant", jax.device_put(np.arange(4.), P()))):
            out[f"shard_map unreduced out of {name}"] = _answer(lambda: summands(
                jax.jit(jax.shard_map(lambda x: x.sum(), out_specs=P(unreduced={"x"})))(arg)))

        @jax.jit
        @jax.shard_map(out_specs=P())
        def casts(x, y):
            u = lax.pcast(x, "x", to="unreduced")
            p = lax.psum(u, "x")
            w = lax.pcast(y, "x", to="varying")
            q = lax.pcast(lax.psum(x, "x"), "x", to="reduced")
            seen["casts"] = [mat(u), mat(p), mat(w), mat(q)]
            return p

        out["shard_map pcast and psum"] = _answer(lambda: [
            np.asarray(casts(a, r)).tolist(), str(jax.make_jaxpr(casts)(a, r)).count(
                "unreduced_psum"), seen["casts"]])
        out["shard_map pcast unsupported"] = _answer(lambda: jax.jit(jax.shard_map(
            lambda y: lax.pcast(y, "x", to="unreduced"), out_specs=P()))(r))

        @jax.jit
        @jax.shard_map(out_specs=P(None, reduced={"x"}))
        def gathered(x):
            g = lax.all_gather(x, "x", tiled=True, to="reduced")
            seen["gathered"] = mat(g)
            return g

        gather_grad = jax.jit(jax.grad(lambda x: gathered(x).sum()))
        out["shard_map all_gather to reduced"] = _answer(lambda: [
            summands(gathered(a)), seen["gathered"], summands(gather_grad(a)),
            str(jax.make_jaxpr(gather_grad)(a)).count("unreduced_reduce_scatter")])

        @jax.jit
        @jax.shard_map(in_specs=P(unreduced={"x"}), out_specs=P("x"))
        def scattered(x):
            y = lax.psum_scatter(x, "x", tiled=True)
            seen["scattered"] = mat(y)
            return y

        u = jax.jit(lambda: jnp.arange(8.), out_shardings=P(unreduced={"x"}))()
        out["shard_map psum_scatter of unreduced"] = _answer(lambda: [
            summands(scattered(u)), seen["scattered"]])

        core = __import__("importlib").import_module(jax.__name__ + "._src.core")
        untyped = jax.jit(jax.shard_map(lambda x: core.reduced_vary_cast(x, "x"),
                                        in_specs=P(reduced={"x"}), out_specs=P("x"),
                                        check_vma=False))
        untyped_grad = jax.jit(jax.grad(lambda x: untyped(x).sum()))
        r8 = jax.device_put(np.arange(8.), P(reduced={"x"}))
        out["shard_map check_vma=False reduced_vary_cast grad"] = _answer(lambda: [
            summands(untyped_grad(r8)), "psum" in str(jax.make_jaxpr(untyped_grad)(r8))])

        # run eagerly (outside jit): each step on every device's block, the same types
        eager_in = jax.shard_map(lambda x: lax.pcast(x, "x", to="varying"), out_specs=P("x"))
        eager_out = jax.shard_map(lambda x: lax.pcast(x, "x", to="unreduced"),
                                  out_specs=P(unreduced={"x"}))
        out["shard_map eager reduced in"] = _answer(lambda: [
            summands(eager_in(r)), summands(jax.grad(lambda x: eager_in(x).sum())(r))])
        out["shard_map eager unreduced out"] = _answer(lambda: [
            summands(eager_out(a)), summands(jax.grad(lambda x: eager_out(x).sum())(a))])

        # a residual of a linearized body keeps its sets (JAX's nospec), and a transpose's
        # broadcast keeps its cotangent's: the gradient of a reduced input is unreduced
        sin_sum = jax.jit(jax.shard_map(lambda x: lax.sin(x).sum(), out_specs=P(reduced={"x"})))
        r8 = jax.device_put(np.arange(8.) / 8, P(reduced={"x"}))
        out["shard_map grad through a reduced residual"] = _answer(lambda: [
            summands(g) for g in [jax.jit(jax.grad(sin_sum))(r8)]][0][0])
        u8 = jax.jit(lambda: jnp.arange(8.), out_shardings=P(unreduced={"x"}))()
        times = jax.jit(jax.shard_map(lambda x, y: (x * y).sum(), out_specs=P(unreduced={"x"})))
        out["shard_map grad of unreduced times reduced"] = _answer(lambda: [
            summands(g)[0] for g in jax.jit(jax.grad(times, argnums=(0, 1)))(u8, r8)])

        # a custom_vjp in a body: its linearized equation's types (the tangents') keep the sets
        @jax.custom_vjp
        def ident(x):
            return x

        ident.defvjp(lambda x: (x, None), lambda _, g: (g + g,))
        through = jax.shard_map(lambda x: ident(x), out_specs=P(reduced={"x"}))
        out["shard_map grad through custom_vjp of reduced"] = _answer(lambda: summands(
            jax.jit(jax.grad(lambda x: through(x).sum()))(r8)))

        # an in_spec's sets must be the argument's (JAX's error: shard_map does not reshard)
        out["shard_map unreduced in_spec of a plain value"] = _answer(lambda: jax.shard_map(
            lambda t: t, in_specs=P(None, unreduced={"x"}), out_specs=P(None))(jnp.ones(2)))
        out["shard_map reduced in_spec of an unreduced value"] = _answer(lambda: jax.shard_map(
            lambda t: t, in_specs=P(reduced={"x"}), out_specs=P(None))(u8))
