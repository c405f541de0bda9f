"""Cases for JAX 0.10.2's public names jxkernel added at stop 68 (serialize_executable,
inspect_array_sharding, with_layout_constraint, jax.extend.core's tracing names): `run(jax)`
on one device, `run_mesh(jax)` on 8 CPU devices. reference/make_added_names_reference.py
records JAX's answers into added_names_reference.json; tests/jax_compat/test_added_names.py
runs the same with jxkernel and compares exactly (ints, bits, shapes, texts, error words)."""
import functools
import importlib

import numpy as np
from public_names_cases import enc, message


def serialize_executable_cases(jax):
    """A compiled jit as bytes and back: same results, trees, argument info, errors."""
    jnp = jax.numpy
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    closed = jnp.asarray([1.0, 2.0, 4.0])        # closed over: a constant of the program

    def f(x, y=None):
        return {"a": x * 2 + closed, "b": (x + y["k"]).sum(), "c": (x.astype(jnp.int32), 7)}
    x, k = jnp.arange(3.0), jnp.full(3, 0.5)
    compiled = jax.jit(f).lower(x, y={"k": k}).compile()
    payload, in_tree, out_tree = se.serialize(compiled)
    loaded = se.deserialize_and_load(payload, in_tree, out_tree)
    donating = jax.jit(lambda a, n: a * n, donate_argnums=0).lower(jnp.ones(2), 3).compile()
    # loaded on the backend it was compiled for, named (the CPU where JAX recorded it)
    again = se.deserialize_and_load(*se.serialize(donating), backend=jax.default_backend())
    given = jnp.arange(2.0)
    twice = again(given, 3)
    return {
        "types": [type(payload).__name__, str(in_tree), str(out_tree),
                  isinstance(loaded, jax.stages.Compiled)],
        "same": [enc(loaded(x, y={"k": k})), enc(compiled(x, y={"k": k}))],
        "signature": [str(loaded.in_tree), str(loaded.out_tree), repr(loaded.args_info),
                      repr(loaded.input_shardings), repr(loaded.output_shardings),
                      sorted(loaded._executable._kept_var_idx)],
        "donated": [enc(twice), given.is_deleted(), repr(again.args_info)],
        "wrong_shape": message(lambda: loaded(jnp.arange(4.0), y={"k": jnp.ones(4)})),
        "wrong_tree": message(lambda: loaded(x)),
        "not_compiled": outcome_class(lambda: se.serialize(jax.jit(f))),
        "other_client": message(lambda: se.deserialize_and_load(
            payload, in_tree, out_tree, backend=None, execution_devices=[object()])),
    }


def outcome_class(fun):
    try:
        fun()
    except Exception as e:
        return type(e).__name__
    return "no error"


def inspect_sharding_cases(jax):
    """jax.debug.inspect_array_sharding on one device: eagerly the Array's sharding, under
    jit replicated (at lowering), under vmap the whole batched value's; its jaxpr."""
    jnp, got = jax.numpy, []

    def make():       # a function of its own per jit (JAX's jits of one function share caches)
        def f(a):
            b = jnp.sin(a)
            jax.debug.inspect_array_sharding({"b": b, "t": (b.T,)},
                                             callback=lambda s: got.append(repr(s)))
            return b * 2
        return f
    f, x = make(), jnp.ones((4, 2))
    out = {}
    jax.debug.inspect_array_sharding(x, callback=lambda s: got.append(repr(s)))
    out["eager"], got[:] = list(got), []
    jax.jit(make()).lower(x)
    out["lowered"], got[:] = list(got), []
    jitted = jax.jit(make())
    jitted(x)
    jitted(x)
    out["called"], got[:] = list(got), []
    jax.vmap(f)(jnp.ones((3, 4, 2)))
    out["vmap"], got[:] = list(got), []
    jax.grad(lambda a: f(a).sum())(x)
    out["grad"], got[:] = list(got), []
    out["jaxpr"] = str(jax.make_jaxpr(f)(x))
    return out


def layout_constraint_cases(jax):
    """jax.experimental.layout.with_layout_constraint: the same values eagerly, under jit,
    vmap and grad; JAX's jaxprs, its custom call in the lowered module, its errors."""
    import numpy as np
    jnp = jax.numpy
    layout = importlib.import_module(jax.__name__ + ".experimental.layout")
    Layout, wlc = layout.Layout, layout.with_layout_constraint
    x = jnp.arange(6.0).reshape(2, 3)
    f = jax.jit(lambda a: wlc(a * 2, Layout((1, 0))) + 1)
    g = jax.vmap(lambda a: wlc(a * 2, Layout((1, 0))))
    h = lambda a: jax.jit(lambda b: wlc(b * 2, Layout((1, 0))))(a).sum()   # noqa: E731
    return {
        "eager": [enc(wlc(x, Layout((0, 1)))), enc(wlc(x, Layout((1, 0)))),
                  enc(wlc({"a": x, "b": (x[0],)}, {"a": Layout((1, 0)), "b": Layout((0,))}))],
        "jit": [enc(f(x)), enc(jax.jit(lambda a: wlc(a, Layout((1, 0))))(x)),
                [line.strip() for line in f.lower(x).as_text().splitlines()
                 if "LayoutConstraint" in line],
                str(jax.make_jaxpr(f)(x))],
        "vmap": [str(jax.make_jaxpr(g)(jnp.ones((4, 2, 3)))), enc(jax.jit(g)(x[None] + 1.0)),
                 str(jax.make_jaxpr(jax.vmap(lambda a: wlc(a, Layout((1, 0))), in_axes=1))(
                     jnp.ones((2, 4, 3))))],
        "grad": [enc(jax.grad(lambda a: wlc(a * 2, Layout((1, 0))).sum())(x)),
                 str(jax.make_jaxpr(jax.grad(h))(x))],
        # (the prefix error's and the eager one's last words name each side's own classes)
        "errors": [message(lambda: wlc(x, Layout((0,)))),
                   message(lambda: wlc(x, None)),
                   [m[:90] for m in message(lambda: wlc(x, (0, 1)))],
                   [m.split(" Got ")[0] for m in message(
                       lambda: wlc(np.ones(3, np.float32), Layout((0,))))]],
    }


def _axis_probes(jax, record):
    """A function recording, where it runs, what jax.extend.core's trace queries answer."""
    ec = importlib.import_module(jax.__name__ + ".extend.core")

    def probe(tag):
        def f(x):
            record.append([tag, ec.unsafe_am_i_under_a_vmap_DO_NOT_USE(),
                           ec.unsafe_am_i_under_a_jit_DO_NOT_USE(),
                           ec.nonempty_axis_env_DO_NOT_USE(),
                           ec.unsafe_get_axis_names_DO_NOT_USE()])
            return x
        return f
    return probe


def extend_core_cases(jax):
    """jax.extend.core's trace queries inside vmap, jit, grad, scan, cond; TraceTag, gensym,
    array_types; a CallPrimitive of one's own eagerly, staged, under jvp, vmap and grad."""
    jnp, record = jax.numpy, []
    ec = importlib.import_module(jax.__name__ + ".extend.core")
    lu = importlib.import_module(jax.__name__ + ".extend.linear_util")
    api_util = importlib.import_module(jax.__name__ + ".api_util")
    probe = _axis_probes(jax, record)
    x = jnp.ones((2, 4))
    probe("top")(x)
    jax.vmap(probe("vmap"))(x)
    jax.vmap(probe("vmap_named"), axis_name="i")(x)
    jax.jit(probe("jit"))(x)
    jax.vmap(jax.jit(probe("vmap_jit")))(x)
    jax.jit(jax.vmap(probe("jit_vmap"), axis_name="b"))(x)
    jax.vmap(jax.vmap(probe("vmap_vmap"), axis_name="inner"), axis_name="outer")(
        jnp.ones((2, 3, 4)))
    jax.vmap(jax.vmap(probe("shadowed"), axis_name="a"), axis_name="a")(jnp.ones((2, 3, 4)))
    jax.grad(lambda v: probe("grad")(v).sum())(x)
    jax.jit(jax.grad(lambda v: probe("jit_grad")(v).sum()))(x)
    jax.vmap(jax.grad(lambda v: probe("vmap_grad")(v).sum()), axis_name="g")(x)
    jax.make_jaxpr(probe("make_jaxpr"))(x)
    jax.lax.scan(lambda c, v: (probe("scan")(c), v), 0.0, jnp.ones(3))
    jax.vmap(lambda v: jax.lax.cond(v.sum() > 0, probe("vmap_cond"), lambda a: a, v))(x)
    v = ec.gensym()(jax.core.ShapedArray((2,), np.float32))
    # a CallPrimitive of one's own
    call = ec.CallPrimitive("cases_call")
    call.def_impl(ec.call_impl)

    def g(y, z):
        return [y * 2.0 + z, y * y]

    def f(a, z):
        fun = lu.wrap_init(g, debug_info=api_util.debug_info("cases", g, (a, z), {}))
        return call.bind(a, z, subfuns=(fun,), extra=3)
    no_impl = ec.CallPrimitive("cases_no_impl")
    a = jnp.arange(3.0)
    names = lambda closed: [e.primitive.name for e in closed.jaxpr.eqns]   # noqa: E731
    staged = jax.make_jaxpr(f)(a, 1.0)
    return {
        "queries": record,
        "trace_tag": [ec.TraceTag() == ec.TraceTag(), hash(ec.TraceTag()) == hash(ec.TraceTag()),
                      ec.TraceTag() == 1],
        "gensym": [ec.gensym() is ec.Var, type(v).__name__, str(v.aval)],
        "array_types": sorted(t.__name__ for t in ec.array_types),
        "call": {
            "flags": [call.multiple_results, call.call_primitive, call.skip_canonicalization,
                      isinstance(call, ec.Primitive)],
            "eager": enc(f(a, 1.0)),
            "staged": [names(staged), sorted(staged.jaxpr.eqns[0].params),
                       staged.jaxpr.eqns[0].params["extra"]],
            "jvp": enc(jax.jvp(f, (a, 1.0), (jnp.ones(3), 0.5))),
            "vmap": [enc(jax.vmap(f, (0, None))(a, 1.0)),
                     names(jax.make_jaxpr(jax.vmap(f, (0, None)))(a, 1.0))],
            "grad": message(lambda: jax.grad(lambda b: f(b, 1.0)[1].sum())(a)),
            "jit": message(lambda: jax.jit(f)(a, 1.0)),
            "no_impl": message(lambda: no_impl.bind(a, subfuns=(lu.wrap_init(
                lambda b: [b], debug_info=api_util.debug_info("cases", g, (a,), {})),))),
        },
    }


def _custom_partitioning(jax):
    return importlib.import_module(jax.__name__ + ".experimental.custom_partitioning")


def custom_partitioning_cases(jax):
    """custom_partitioning on one device (its function runs, no partition call), its
    jaxpr, its sharding rules' texts and errors."""
    jnp, cp, calls = jax.numpy, _custom_partitioning(jax), []

    def partition(mesh, arg_shapes, result_shape):
        calls.append("partition")
        return mesh, lambda a: a * 2, result_shape.sharding, (arg_shapes[0].sharding,)

    @cp.custom_partitioning
    def double(a):
        return a * 2
    double.def_partition(partition=partition, sharding_rule="i j -> i j")
    x = jnp.arange(6.0).reshape(2, 3)
    rule = cp.SdyShardingRule((cp.ArrayMapping(cp.BATCHING, "i"), cp.ArrayMapping("j", "k")),
                              (cp.ArrayMapping(cp.CompoundFactor("a", "b"), "c"),),
                              reduction_factors=("k",), a=2, b=3)

    def bad_rule(text, **keywords):
        return message(lambda: double.def_partition(partition=partition, sharding_rule=text,
                                                    **keywords))

    def infer_only():
        f = cp.custom_partitioning(lambda a: a)
        f.def_partition(partition=partition, infer_sharding_from_operands=lambda *a: None)
        return f(x)
    return {
        "eager": [enc(double(x)), enc(jax.jit(double)(x)), calls],
        "jaxpr": str(jax.make_jaxpr(double)(x)),
        "names": [cp.BATCHING, isinstance(cp.custom_partitioning_p, jax.extend.core.Primitive),
                  cp.custom_partitioning_p.name, cp.custom_partitioning_p.multiple_results],
        "rule": [str(rule), repr(cp.ArrayMapping("i", cp.CompoundFactor("j", "k"))),
                 message(lambda: cp.CompoundFactor("j")),
                 message(lambda: cp.ArrayMapping("i", cp.BATCHING)),
                 message(lambda: cp.ArrayMapping("1i")),
                 message(lambda: cp.SdyShardingRule((cp.ArrayMapping("i"),),
                                                    (cp.ArrayMapping("i"),), i=2)),
                 message(lambda: cp.SdyShardingRule((cp.ArrayMapping(cp.CompoundFactor(
                     "i", "j")),), (cp.ArrayMapping("i"),))),
                 message(lambda: cp.SdyShardingRule((cp.ArrayMapping("i", "j"),),
                                                    (cp.ArrayMapping("i"),),
                                                    reduction_factors=("j",),
                                                    permutation_factors=("j",)))],
        "rule_text_errors": [bad_rule("i j"), bad_rule("i. -> i"), bad_rule("(i) -> i"),
                             bad_rule("((i j)) -> i"), bad_rule("i ... -> i"),
                             bad_rule("i -> i", reduction_factors=("k",)),
                             bad_rule("i% -> i"), bad_rule("(i j -> i"),
                             message(lambda: double.def_partition(
                                 partition=partition, sharding_rule=rule, i=2))],
        "infer_only": message(infer_only),
    }


def run(jax) -> dict:
    return {"serialize_executable": serialize_executable_cases(jax),
            "inspect_sharding": inspect_sharding_cases(jax),
            "layout_constraint": layout_constraint_cases(jax),
            "extend_core": extend_core_cases(jax),
            "custom_partitioning": custom_partitioning_cases(jax)}


def extend_core_mesh_cases(jax):
    """jax.extend.core's trace queries under pmap and shard_map (their axes named) and
    vmap inside shard_map."""
    jnp, sh, record = jax.numpy, jax.sharding, []
    probe = _axis_probes(jax, record)
    jax.pmap(probe("pmap"), axis_name="p")(jnp.ones((2, 3)))
    mesh = jax.make_mesh((2, 4), ("a", "b"), axis_types=(sh.AxisType.Auto,) * 2)
    spec = sh.PartitionSpec("a")
    jax.jit(jax.shard_map(probe("shard_map"), mesh=mesh, in_specs=spec, out_specs=spec))(
        jnp.ones((4, 2)))
    jax.jit(jax.shard_map(jax.vmap(probe("shard_map_vmap"), axis_name="v"), mesh=mesh,
                          in_specs=spec, out_specs=spec))(jnp.ones((4, 2)))
    # (jitted: an eager shard_map under vmap is staged here, run op by op in JAX)
    jax.jit(jax.vmap(jax.shard_map(probe("vmap_shard_map"), mesh=mesh, in_specs=spec,
                                   out_specs=spec), axis_name="w"))(jnp.ones((3, 4, 2)))
    return {"queries": record}


def inspect_sharding_mesh_cases(jax):
    """inspect_array_sharding inside jits partitioned over a 4x2 mesh: the shardings XLA's
    propagation chose, told when the program compiles (not when it is lowered, nor again when
    it runs), under grad and in a shard_map body (manual there: P())."""
    import numpy as np
    jnp, sh, got = jax.numpy, jax.sharding, []
    mesh = sh.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), sh.NamedSharding(mesh, sh.PartitionSpec(
        "x", "y")))

    def cb(s):
        got.append(repr(s))

    def make():       # a function of its own per jit (JAX's jits of one function share caches)
        def f(a):
            b = jnp.sin(a)
            jax.debug.inspect_array_sharding(b, callback=cb)
            c = b.T
            jax.debug.inspect_array_sharding(c, callback=cb)
            jax.debug.inspect_array_sharding({"s": c.sum(0)}, callback=cb)
            return c * 2
        return f

    def taken():
        seen, got[:] = list(got), []
        return seen
    out = {}
    jax.debug.inspect_array_sharding(x, callback=cb)
    out["eager"] = taken()
    lowered = jax.jit(make()).lower(x)
    out["lowered"] = taken()
    lowered.compile()
    out["compiled"] = taken()
    called = jax.jit(make())
    result = called(x)
    out["called"] = [taken(), repr(result.sharding)]
    called(x)
    out["called_again"] = taken()
    given = jax.jit(make(), in_shardings=sh.NamedSharding(mesh, sh.PartitionSpec(None, "y")))
    given(jnp.ones((8, 4)))
    out["in_shardings"] = taken()
    f = make()
    jax.jit(jax.grad(lambda a: f(a).sum()))(x)
    out["grad"] = taken()
    body = jax.shard_map(lambda a: (jax.debug.inspect_array_sharding(a, callback=cb), a)[1],
                         mesh=mesh, in_specs=sh.PartitionSpec("x"),
                         out_specs=sh.PartitionSpec("x"))
    jax.jit(body)(x)
    out["shard_map"] = taken()
    return out


def custom_partitioning_mesh_cases(jax):
    """JAX's custom_partitioning docstring example (my_fft: the FFT along the last
    dimension, partitioned over the others) on an 8-device mesh, and a function of two
    results with a static argument; the sharding rules' attributes in lowered modules."""
    import re
    jnp, sh, cp = jax.numpy, jax.sharding, _custom_partitioning(jax)
    P, calls = sh.PartitionSpec, []
    fft = jnp.fft.fft

    def supported_sharding(sharding, shape):
        rank = len(shape.shape)
        kept = min(len(sharding.spec), rank - 1)
        names = tuple(sharding.spec[:kept]) + tuple(None for _ in range(rank - kept))
        return sh.NamedSharding(sharding.mesh, P(*names))

    def partition(mesh, arg_shapes, result_shape):
        calls.append([str(arg_shapes[0].sharding), str(result_shape.sharding),
                      list(arg_shapes[0].shape)])
        shardings = jax.tree.map(lambda a: a.sharding, arg_shapes)
        return mesh, fft, supported_sharding(shardings[0], arg_shapes[0]), \
            (supported_sharding(shardings[0], arg_shapes[0]),)

    @cp.custom_partitioning
    def my_fft(a):
        return fft(a)
    my_fft.def_partition(partition=partition, sharding_rule="...i -> ...i")
    mesh = sh.Mesh(np.array(jax.devices()), ("x",))
    pattern = "(dynamic-slice|all-gather)"
    key = re.compile(r'backend_config = "[0-9]+"')

    def custom_call_lines(lowered):
        return [key.sub('backend_config = "KEY"', line.strip())
                for line in lowered.as_text().splitlines() if "CustomSPMD" in line]
    out = {}
    for shape in ((64, 16), (256,)):
        x = np.asarray(np.random.RandomState(0).randn(*shape), dtype=np.complex64)
        with jax.set_mesh(mesh):
            y = jax.jit(lambda a: a, out_shardings=P("x"))(x)
            mine = jax.jit(my_fft, in_shardings=P("x"), out_shardings=P("x"))
            plain = jax.jit(fft, in_shardings=P("x"), out_shardings=P("x"))
            got, want = mine(y), plain(y)
            texts = [f.lower(x).compile().as_text() for f in (mine, plain)]
            out[f"fft{len(shape)}d"] = [
                bool(np.abs(np.asarray(got) - np.asarray(want)).max() < 1e-3),
                repr(got.sharding), [re.search(pattern, t) is not None for t in texts],
                list(calls), custom_call_lines(mine.lower(x))]
        calls[:] = []

    # two results, a static argument, the shardings partition asks for
    def partition2(n, mesh, arg_shapes, result_shape):
        calls.append([n, str(arg_shapes[0].sharding), [str(r.sharding) for r in result_shape]])
        spec = sh.NamedSharding(mesh, P("x", None))
        return mesh, lambda a: (a + n, a * n), (spec, spec), (spec,)

    @functools.partial(cp.custom_partitioning, static_argnums=(0,))
    def two(n, a):
        return a + n, a * n
    two.def_partition(partition=partition2, sharding_rule="i j -> i j, i j")
    x = jnp.arange(32.0).reshape(8, 4)
    with jax.set_mesh(mesh):
        y = jax.device_put(x, P("x"))
        first, second = jax.jit(two, static_argnums=0)(3, y)
        out["two"] = [enc([first, second]), repr(first.sharding), list(calls)]
    # a per-device function with a collective over the mesh inside a scan (JAX's test of
    # https://github.com/jax-ml/jax/issues/20864)
    @cp.custom_partitioning
    def total(a):
        return jnp.sum(a)

    def partition3(mesh, arg_shapes, result_shape):
        def lower_fn(xs):
            body = lambda c, v: (c + jax.lax.psum(jnp.sum(v), axis_name="x"), None)  # noqa: E731
            return jax.lax.scan(body, 0.0, xs)[0]
        return mesh, lower_fn, result_shape.sharding, (arg_shapes[0].sharding,)
    total.def_partition(partition3, sharding_rule="i j -> ")
    four = sh.Mesh(np.array(jax.devices()[:4]), ("x",))
    with jax.set_mesh(four):
        xs = jax.device_put(jnp.arange(512.0).reshape(32, 16), P(None, "x"))
        out["psum_in_scan"] = enc(jax.jit(total, in_shardings=P(None, "x"))(xs))
    # rules' attributes, as lowered (not compiled: no partition call)
    lines = {}
    for name, rule, keywords, args in (
            ("matmul", "i j, j k -> i k", {"reduction_factors": ("j",)},
             (jnp.ones((8, 4)), jnp.ones((16, 8)))),
            ("compound", "(a b) c -> (a b) c", {"a": 4, "b": 2}, (jnp.ones((8, 3)),)),
            ("replicated", "i j -> i j", {"need_replication_factors": ("j",)},
             (jnp.ones((8, 3)),)),
            ("batched", "...0 i, ...1 j -> ...0 i", {}, (jnp.ones((8, 2, 3)), jnp.ones((8, 5)))),
            ("scalar", " -> ", {}, (jnp.float32(1.0),))):
        f = cp.custom_partitioning(lambda *a: a[0])
        f.def_partition(partition=partition, sharding_rule=rule, **keywords)
        with jax.set_mesh(mesh):
            shardings = tuple(sh.NamedSharding(mesh, P("x") if a.ndim else P()) for a in args)
            lines[name] = custom_call_lines(jax.jit(f, in_shardings=shardings).lower(*args))
    out["rules"] = lines
    return out


def run_mesh(jax) -> dict:
    return {"inspect_sharding": inspect_sharding_mesh_cases(jax),
            "extend_core": extend_core_mesh_cases(jax),
            "custom_partitioning": custom_partitioning_mesh_cases(jax)}
