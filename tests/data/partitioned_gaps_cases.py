"""Cases for gaps closed at stop 69 around programs over a mesh and jit's caches: `run(jax)`
on one device, `run_mesh(jax)` on 8 CPU devices. reference/make_partitioned_gaps_reference.py
records JAX 0.10.2's answers into partitioned_gaps_reference.json;
tests/sharding/test_partitioned_gaps.py runs the same with jxkernel and compares exactly
(ints, bits, shapes, texts, error words)."""
import functools
import importlib
import warnings

import numpy as np
from public_names_cases import enc


def _shardings(tree, jax):
    return [repr(s) for s in jax.tree_util.tree_leaves(tree, is_leaf=lambda s: s is None)]


def _structs(tree, jax):
    """Each ShapeDtypeStruct as shape, dtype and sharding (JAX's repr adds a `format` that
    jxkernel does not model)."""
    return [[list(s.shape), str(s.dtype), repr(s.sharding)] for s in jax.tree_util.tree_leaves(tree)]


def serialize_mesh_cases(jax):
    """jax.experimental.serialize_executable of jits partitioned over a mesh: the loaded
    Compiled computes what the original does, its results laid out alike, with the same
    shardings, argument info and kept arguments; donation; a mesh on some devices only;
    execution devices that lack the mesh's."""
    jnp, sh = jax.numpy, jax.sharding
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    P, out = sh.PartitionSpec, {}
    mesh = sh.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    closed = jnp.arange(4.0)                  # closed over: a constant of the program

    def f(a, b):
        return {"s": a * 2 + closed, "t": (a.sum(0), b @ b.T)}
    jf = jax.jit(f, in_shardings=(sh.NamedSharding(mesh, P("x", "y")),
                                  sh.NamedSharding(mesh, P("x"))))
    a, b = jnp.arange(32.0).reshape(8, 4), jnp.ones((8, 3))
    compiled = jf.lower(a, b).compile()
    payload, in_tree, out_tree = se.serialize(compiled)
    loaded = se.deserialize_and_load(payload, in_tree, out_tree)
    got, want = loaded(a, b), compiled(a, b)
    out["values"] = [enc(got), enc(want), _shardings(got, jax), _shardings(want, jax)]
    out["signature"] = [type(payload).__name__, str(in_tree), str(out_tree),
                        isinstance(loaded, jax.stages.Compiled), repr(loaded.args_info),
                        _shardings(loaded.input_shardings, jax),
                        _shardings(loaded.output_shardings, jax),
                        _structs(loaded.out_info, jax), sorted(loaded._executable._kept_var_idx)]

    # an unused argument (not kept), given output shardings, one argument donated
    s = sh.NamedSharding(mesh, P("x"))
    jg = jax.jit(lambda u, unused, v: (u * v, u + v), in_shardings=(s, None, s),
                 out_shardings=(sh.NamedSharding(mesh, P("y")), None), donate_argnums=0)
    u, v = jnp.arange(16.0).reshape(8, 2), jnp.full((8, 2), 2.0)
    loaded = se.deserialize_and_load(*se.serialize(jg.lower(u, jnp.ones(3), v).compile()))
    given = jax.device_put(u, s)
    got = loaded(given, jnp.ones(3), v)
    out["donated"] = [enc(got), _shardings(got, jax), given.is_deleted(),
                      _shardings(loaded.input_shardings, jax), repr(loaded.args_info),
                      sorted(loaded._executable._kept_var_idx)]

    # a mesh of two of the devices, loaded onto those; execution devices without them
    pair = sh.Mesh(np.array(jax.devices()[2:4]), ("d",))
    h = jax.jit(lambda w: w * 3, in_shardings=sh.NamedSharding(pair, P("d")))
    saved = se.serialize(h.lower(jnp.arange(4.0)).compile())
    got = se.deserialize_and_load(*saved, execution_devices=jax.devices()[2:4])(jnp.arange(4.0))
    out["two_devices"] = [enc(got), repr(got.sharding),
                          [d.id for d in got.sharding._device_assignment]]
    try:
        se.deserialize_and_load(*saved, execution_devices=jax.devices()[:2])
        out["missing_devices"] = "no error"
    except Exception as e:
        out["missing_devices"] = [type(e).__name__, str(e)]

    # under set_mesh, a bare PartitionSpec
    w = jnp.ones((8, 4))
    with jax.set_mesh(mesh):
        k = jax.jit(lambda w: jnp.sin(w) @ w.T, in_shardings=P("x", "y"))
        compiled = k.lower(w).compile()
    loaded = se.deserialize_and_load(*se.serialize(compiled))
    got = loaded(w)
    out["set_mesh"] = [enc(got) == enc(compiled(w)), repr(got.sharding),
                       _shardings(loaded.output_shardings, jax)]
    return out


def jit_cache_cases(jax):
    """What jits of one function share, step by step: per step [the function's traces, the
    programs compiled] (jtu's count_jit_compilation_cache_miss), and per scenario the
    programs lowered (count_jit_and_pmap_lowerings; jxkernel lowers as it compiles, so only
    the totals compare). JAX's tracing cache is keyed on the function and the types, its
    lowering cache on the trace and the lowering's parameters (a Lowered keeps its
    executable), its jits' shared (C++) cache on the function and the jit's options less
    inline and keep_unused."""
    jnp = jax.numpy
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    x, y, z = jnp.ones(3), jnp.ones(3), jnp.ones(3)
    traces = []

    def make():
        def g(a, b=None):
            traces.append(1)
            return a * 2
        return g

    def h(a, n):
        traces.append(1)
        return a * n

    def scenario(*steps):
        counts = []
        with jtu.count_jit_and_pmap_lowerings() as lowered:
            for step in steps:
                traces[:] = []
                with jtu.count_jit_compilation_cache_miss() as compiled:
                    step()
                counts.append([len(traces), compiled()])
        return {"steps": counts, "lowerings": lowered()}
    out = {}
    g = make()
    f = jax.jit(g)
    out["lower_then_call"] = scenario(lambda: f.lower(x), lambda: f(x), lambda: f(x))
    g = make()
    f = jax.jit(g)
    out["lower_compile_then_call"] = scenario(lambda: f.lower(x).compile(), lambda: f(x))
    g = make()
    out["two_jits"] = scenario(lambda: jax.jit(g)(x), lambda: jax.jit(g)(x))
    g = make()
    out["call_then_another_jits_lower"] = scenario(
        lambda: jax.jit(g)(x), lambda: jax.jit(g).lower(x), lambda: jax.jit(g).lower(x).compile())
    g = make()
    out["compile_twice"] = scenario(lambda: jax.jit(g).lower(x).compile(),
                                    lambda: jax.jit(g).lower(x).compile(), lambda: jax.jit(g)(x))
    g = make()
    out["trace_then_lower"] = scenario(lambda: jax.jit(g).trace(x).lower(),
                                       lambda: jax.jit(g).trace(x).lower().compile(),
                                       lambda: jax.jit(g)(x))
    g = make()
    out["other_options"] = scenario(
        lambda: jax.jit(g)(x), lambda: jax.jit(g, donate_argnums=0)(y),
        lambda: jax.jit(g, donate_argnums=0)(z), lambda: jax.jit(g, keep_unused=True)(x),
        lambda: jax.jit(g, inline=True)(x))
    g = make()
    out["keep_unused"] = scenario(
        lambda: jax.jit(g, keep_unused=True).lower(x, x).compile(),
        lambda: jax.jit(g)(x, x), lambda: jax.jit(g, keep_unused=True)(x, x),
        lambda: sorted(jax.jit(g, keep_unused=True).lower(x, x).compile()._executable
                       ._kept_var_idx) == [0, 1] or traces.append("kept"))
    # (stop 70) a keep_unused jit's call after its `.lower().compile()` compiles nothing; a
    # jit of other options lowers the trace another's call or stage made
    g = make()
    f = jax.jit(g, keep_unused=True)
    out["keep_unused_compile_then_call"] = scenario(lambda: f.lower(x, x).compile(),
                                                    lambda: f(x, x), lambda: f(x, x))
    f = jax.jit(lambda a, n: h(a, n), keep_unused=True, static_argnums=1)   # (not h's caches)
    out["keep_unused_static_compile_then_call"] = scenario(lambda: f.lower(x, 2).compile(),
                                                           lambda: f(x, 2))
    g = make()
    out["keep_unused_then_donating_compile"] = scenario(
        lambda: jax.jit(g, keep_unused=True).lower(x, x).compile(),
        lambda: jax.jit(g, keep_unused=True, donate_argnums=1).lower(x, x).compile(),
        lambda: jax.jit(g, keep_unused=True, donate_argnums=1)(x, jnp.ones(3)))
    g = make()
    out["lower_then_donating_lower"] = scenario(      # (steps: jxkernel lowers as it compiles)
        lambda: jax.jit(g).lower(x, x), lambda: jax.jit(g, donate_argnums=1).lower(x, x),
        lambda: jax.jit(g, donate_argnums=1).lower(x, x).compile())["steps"]
    g = make()
    out["call_then_donating_lower"] = scenario(
        lambda: jax.jit(g)(x, x), lambda: jax.jit(g, donate_argnums=1).lower(x, x))["steps"]
    out["static"] = scenario(
        lambda: jax.jit(h, static_argnums=1)(x, 2), lambda: jax.jit(h, static_argnums=1)(x, 2),
        lambda: jax.jit(h, static_argnames="n")(x, 2), lambda: jax.jit(h, static_argnums=1)(x, 3))
    g = make()
    out["eval_shape_then_call"] = scenario(lambda: jax.jit(g).eval_shape(x),
                                           lambda: jax.jit(g)(x))
    g = make()
    with_options = scenario(
        lambda: jax.jit(g)(x),
        lambda: jax.jit(g).lower(x).compile({"xla_embed_ir_in_executable": True}),
        lambda: jax.jit(g).lower(x).compile())
    out["compiler_options"] = with_options["steps"]    # (jxkernel lowers as it compiles)
    return out


def _message(fun):
    try:
        fun()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return "no error"


def axes_mismatch_cases(jax):
    """vmap's and pmap's errors for in_axes or out_axes that are no prefix of the arguments'
    or results' tree: JAX's words, the placeholder leaf's class named as JAX names it."""
    jnp = jax.numpy
    one, host = jnp.ones(2), np.ones((1, 2), np.float32)
    return {
        "vmap_in_tuple_for_leaf": _message(lambda: jax.vmap(lambda a: a, in_axes=((0, 0),))(one)),
        "vmap_in_dict_for_leaf": _message(lambda: jax.vmap(lambda a: a, in_axes=({"a": 0},))(one)),
        "vmap_in_keys": _message(lambda: jax.vmap(lambda a, b: a, in_axes=({"a": 0}, 0))(
            {"b": one}, one)),
        "vmap_in_list_length": _message(lambda: jax.vmap(lambda a: a, in_axes=([0, 0],))([one])),
        "vmap_out_tuple_for_leaf": _message(lambda: jax.vmap(lambda a: a, out_axes=(0, 0))(one)),
        "vmap_out_keys": _message(lambda: jax.vmap(lambda a: {"a": a}, out_axes={"b": 0})(one)),
        "pmap_in_tuple_for_leaf": _message(lambda: jax.pmap(lambda a: a, in_axes=((0, 0),))(
            host)),
        "pmap_in_keys_with_keywords": _message(lambda: jax.pmap(
            lambda a, b=None: a, in_axes=({"a": 0},))({"b": host}, b=host)),
    }


def run(jax) -> dict:
    return {"jit_caches": jit_cache_cases(jax), "axes_mismatch": axes_mismatch_cases(jax)}


def under_a_jit_cases(jax):
    """jax.extend.core's trace queries in a shard_map body run eagerly under vmap, grad and
    both (JAX runs those bodies op by op: no jit), and under jit and make_jaxpr (a jit)."""
    jnp, sh, record = jax.numpy, jax.sharding, []
    ec = importlib.import_module(jax.__name__ + ".extend.core")

    def probe(tag):
        def f(x):
            record.append([tag, ec.unsafe_am_i_under_a_jit_DO_NOT_USE(),
                           ec.unsafe_am_i_under_a_vmap_DO_NOT_USE(),
                           ec.unsafe_get_axis_names_DO_NOT_USE()])
            return x
        return f
    mesh = jax.make_mesh((2, 4), ("a", "b"), axis_types=(sh.AxisType.Auto,) * 2)
    spec = sh.PartitionSpec("a")

    def smap(tag):
        return jax.shard_map(probe(tag), mesh=mesh, in_specs=spec, out_specs=spec)
    jax.vmap(smap("vmap"), axis_name="w")(jnp.ones((3, 4, 2)))
    jax.vmap(smap("vmap_unnamed"))(jnp.ones((3, 4, 2)))
    jax.grad(lambda v: smap("grad")(v).sum())(jnp.ones((4, 2)))
    jax.vmap(jax.grad(lambda v: smap("vmap_grad")(v).sum()))(jnp.ones((3, 4, 2)))
    jax.vmap(jax.vmap(smap("vmap_vmap")))(jnp.ones((2, 3, 4, 2)))
    jax.jit(jax.vmap(smap("jit_vmap")))(jnp.ones((3, 4, 2)))
    jax.make_jaxpr(jax.vmap(smap("make_jaxpr_vmap")))(jnp.ones((3, 4, 2)))
    return {"queries": record}


def jit_cache_mesh_cases(jax):
    """What jits over a mesh share, step by step as jit_cache_cases: [traces, compiles] per
    step; and inspect_array_sharding's callbacks per step (told when a program compiles, so
    once however many calls and stages find it)."""
    jnp, sh = jax.numpy, jax.sharding
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    P, traces, told = sh.PartitionSpec, [], []
    mesh = sh.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    s = sh.NamedSharding(mesh, P("x"))

    def make(inspect=False):
        def g(a):
            traces.append(1)
            if inspect:
                jax.debug.inspect_array_sharding(a, callback=lambda v: told.append(repr(v)))
            return a * 2
        return g

    def scenario(*steps):
        counts = []
        for step in steps:
            traces[:] = told[:] = []
            with jtu.count_jit_compilation_cache_miss() as compiled:
                step()
            counts.append([len(traces), compiled()] + ([list(told)] if told else []))
        return counts
    x = jnp.ones((8, 2))
    split = jax.device_put(x, s)
    out = {}
    f = jax.jit(make(), in_shardings=s)
    out["given_lower_then_call"] = scenario(lambda: f.lower(x), lambda: f(x), lambda: f(x))
    f = jax.jit(make(), in_shardings=s)
    out["given_compile_then_call"] = scenario(lambda: f.lower(x).compile(), lambda: f(x))
    g = make()
    out["given_call_then_compile"] = scenario(
        lambda: jax.jit(g, in_shardings=s)(x), lambda: jax.jit(g, in_shardings=s).lower(x)
        .compile(), lambda: jax.jit(g, in_shardings=s).lower(x).compile())
    g = make()
    out["split_call_then_compile"] = scenario(
        lambda: jax.jit(g)(split), lambda: jax.jit(g).lower(split).compile(),
        lambda: jax.jit(g)(split))
    g = make()
    out["split_compile_twice"] = scenario(
        lambda: jax.jit(g).lower(split).compile(), lambda: jax.jit(g).lower(split).compile(),
        lambda: jax.jit(g)(split))
    g = make()
    with jax.set_mesh(mesh):
        out["set_mesh"] = scenario(lambda: jax.jit(g, in_shardings=P("x"))(x),
                                   lambda: jax.jit(g, in_shardings=P("x")).lower(x).compile())
    g = make(inspect=True)
    out["inspect"] = scenario(
        lambda: jax.jit(g).lower(split), lambda: jax.jit(g)(split), lambda: jax.jit(g)(split),
        lambda: jax.jit(g).lower(split).compile(), lambda: jax.jit(g).lower(split).compile())
    return out


def custom_partitioning_mesh_cases(jax):
    """custom_partitioning over 8 devices: a per-device function closing over array
    constants (JAX's lowering embeds them); a callable sharding_rule, and what it is handed
    (MLIR's tensor types: shape, rank, element type, text)."""
    jnp, sh = jax.numpy, jax.sharding
    cp = importlib.import_module(jax.__name__ + ".experimental.custom_partitioning")
    P, seen = sh.PartitionSpec, []
    mesh = sh.Mesh(np.array(jax.devices()), ("x",))
    table, grid = jnp.arange(4.0), np.arange(16.0, dtype=np.float32).reshape(4, 4)

    @cp.custom_partitioning
    def shifted(a):
        return a + 6.0

    def partition(mesh, arg_shapes, result_shape):
        def lower_fn(a):       # closes over a jax Array and a NumPy array
            return a + table.sum() + jnp.asarray(grid)[1, 2] - 6.0
        return mesh, lower_fn, result_shape.sharding, (arg_shapes[0].sharding,)
    shifted.def_partition(partition=partition, sharding_rule="i j -> i j")

    def rule(n, mesh, value_types, result_types):
        seen.append([n, type(value_types).__name__, type(result_types).__name__] +
                    [[type(t).__name__, str(t), list(t.shape), t.rank, str(t.element_type)]
                     for t in (*value_types, *result_types)])
        return "i j, k -> i j", {}

    def added(n, mesh, arg_shapes, result_shape):
        spec = sh.NamedSharding(mesh, P("x", None))
        return mesh, lambda a, b: a + b.astype(a.dtype).sum() * n, spec, \
            (spec, sh.NamedSharding(mesh, P()))

    @functools.partial(cp.custom_partitioning, static_argnums=(0,))
    def plus(n, a, b):
        return a + b.astype(a.dtype).sum() * n
    plus.def_partition(partition=added, sharding_rule=rule)
    x = jnp.arange(32.0).reshape(8, 4)
    small = jnp.ones(3, jnp.bfloat16)
    with jax.set_mesh(mesh):
        got = jax.jit(shifted, in_shardings=P("x"), out_shardings=P("x"))(x)
        summed = jax.jit(plus, static_argnums=0, in_shardings=(P("x"), P()))(2, x, small)
    return {"closes_over": [enc(got), repr(got.sharding)],
            "rule_callable": [enc(summed), repr(summed.sharding), seen]}


def compiled_call_shardings_cases(jax):
    """A Compiled (and one loaded from bytes) called with committed Arrays laid out otherwise
    than it was compiled for: JAX's ValueError naming each; uncommitted and host values move."""
    jnp, sh = jax.numpy, jax.sharding
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    P = sh.PartitionSpec
    mesh = sh.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    a = jnp.arange(32.0).reshape(8, 4)
    compiled = jax.jit(lambda u, v: u + v, in_shardings=(
        sh.NamedSharding(mesh, P("x", "y")), sh.NamedSharding(mesh, P("x")))).lower(a, a).compile()
    one = jax.jit(lambda u: u + 1).lower(jnp.ones(3)).compile()
    out = {}
    for name, c in (("compiled", compiled), ("loaded", se.deserialize_and_load(
            *se.serialize(compiled)))):
        out[name] = [
            _message(lambda: c(jax.device_put(a, sh.NamedSharding(mesh, P("y"))), a)),
            _message(lambda: c(jax.device_put(a, sh.NamedSharding(mesh, P("y"))),
                               jax.device_put(a, sh.NamedSharding(mesh, P())))),
            _message(lambda: c(jax.device_put(a, jax.devices()[1]), a)),
            _message(lambda: c(jax.device_put(a, jax.devices()[0]), a)),
            repr(c(jax.device_put(a, sh.NamedSharding(mesh, P("x", "y"))), a).sharding),
            repr(c(np.asarray(a), a).sharding)]
    out["one_device"] = [_message(lambda: one(jax.device_put(jnp.ones(3), jax.devices()[1]))),
                         repr(one(jnp.ones(3)).sharding),
                         repr(one(jax.device_put(jnp.ones(3), jax.devices()[0])).sharding)]
    return out


def _token_kind(jax, t):
    """A token as JAX gives it: its class, its type, and its carrier's placement (replicated
    over how many devices)."""
    s = t._buf.sharding
    return [type(t).__name__, str(jax.typeof(t)), s.is_fully_replicated, len(s.device_set)]


def token_mesh_cases(jax):
    """Tokens under set_mesh of a mesh with Explicit axes (stop 70): made, joined, passed to
    and given back by jits, carried through loops unchanged, placed; one made before
    set_mesh, used under it."""
    lax, jnp, sh = jax.lax, jax.numpy, jax.sharding
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(sh.AxisType.Explicit,) * 2)
    kind = functools.partial(_token_kind, jax)
    before = lax.create_token()
    with jax.set_mesh(mesh):
        t = lax.create_token()
        paired = jax.jit(lambda a, x: (lax.after_all(a), x * 2))(t, jnp.ones(8))
        return {
            "create": kind(t),
            "create_with_argument": kind(lax.create_token(jnp.ones(3))),
            "after_all": kind(lax.after_all(t, t)),
            "after_all_none": kind(lax.after_all()),
            "after_all_made_before": kind(lax.after_all(before, t)),
            "jit_made": kind(jax.jit(lambda: lax.create_token())()),
            "jit_passed": kind(jax.jit(lambda a: a)(t)),
            "jit_after_all": kind(jax.jit(lambda a: lax.after_all(a))(t)),
            "jit_made_before": kind(jax.jit(lambda a: lax.after_all(a))(before)),
            "jit_with_an_array": [kind(paired[0]), repr(paired[1].sharding)],
            "scan_carry_passed": kind(lax.scan(lambda c, x: (c, x), t, jnp.arange(4.0))[0]),
            "while_carry_passed": kind(lax.while_loop(lambda c: False, lambda c: c, t)),
            "fori_carry_passed": kind(lax.fori_loop(0, 3, lambda i, c: c, t)),
            "device_put": kind(jax.device_put(t)),
            "block_until_ready": type(jax.block_until_ready(t)).__name__,
            "jaxpr": str(jax.make_jaxpr(lambda a: lax.after_all(a))(t)),
            "lowered_signature": [line.strip() for line in jax.jit(
                lambda a, x: (lax.after_all(a), x * 2)).lower(t, jnp.ones(8)).as_text()
                .splitlines() if "@main(" in line],
        }


# a token carried through a loop that changes it: JAX 0.10.2 fails inside its own code (an
# AttributeError: "'AbstractToken' object has no attribute 'mat'" in scan's abstract eval,
# 'sharding' in while's lowering), over a mesh as on one device; jxkernel gives a Token, as it
# does on one device (lax_numpy_gaps_cases.token_made_in_bodies)
def token_loops_mesh_cases(jax):
    lax, jnp, sh = jax.lax, jax.numpy, jax.sharding
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(sh.AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        t = lax.create_token()
        return {
            "scan_after_all": _message(lambda: lax.scan(lambda c, x: (lax.after_all(c), x), t,
                                                        jnp.arange(4.0))),
            "jit_scan_after_all": _message(lambda: jax.jit(lambda a: lax.scan(
                lambda c, x: (lax.after_all(c), x), a, jnp.arange(4.0)))(t)),
            "fori_after_all": _message(lambda: lax.fori_loop(0, 3, lambda i, c: lax.after_all(c),
                                                             t)),
            "while_after_all": _message(lambda: lax.while_loop(
                lambda c: c[1] < 3, lambda c: (lax.after_all(c[0]), c[1] + 1), (t, 0))),
        }


def _donating(f, *args):
    """[whether each argument is deleted after the call, the warnings it gave]."""
    with warnings.catch_warnings(record=True) as told:
        warnings.simplefilter("always")
        f(*args)
    return [[a.is_deleted() for a in args], [str(w.message) for w in told]]


def donation_mesh_cases(jax):
    """Donated arguments of jits over a mesh (stop 70): deleted where XLA reuses them alone;
    one no result can take (each device's share matched, given result shardings) is kept
    and JAX's warning names its shard's type; where a result's sharding is XLA's choice, XLA
    decides (an Auto mesh)."""
    jnp, sh = jax.numpy, jax.sharding
    P, out = sh.PartitionSpec, {}
    for kind in ("Explicit", "Auto"):
        mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(getattr(sh.AxisType, kind),) * 2)
        s = sh.NamedSharding(mesh, P("x"))

        def split(dtype=jnp.float32, s=s):
            return jax.device_put(jnp.ones((8, 2), dtype), s)
        cases = {
            "usable": (lambda a: a * 2, 0, [split()]),
            "other_dtype_same_size": (lambda a: a.astype(jnp.int32), 0, [split()]),
            "other_shape": (lambda a: a.sum(0), 0, [split()]),
            "int_other_shape": (lambda a: a.sum(0), 0, [split(jnp.int32)]),
            "unused": (lambda a, b: b * 2, 0, [split(), split()]),
            "no_output": (lambda a: None, 0, [split()]),
            "passed_through": (lambda a: a, 0, [split()]),
            "two_donated_one_result": (lambda a, b: a + b, (0, 1), [split(), split()]),
        }
        for name, (f, donate, args) in cases.items():
            out[f"{kind}_{name}"] = _donating(jax.jit(f, donate_argnums=donate), *args)
        out[f"{kind}_unused_kept"] = _donating(jax.jit(lambda a, b: b * 2, donate_argnums=0,
                                                       keep_unused=True), split(), split())
        for spec in ("y", None):
            given = sh.NamedSharding(mesh, P(spec))
            out[f"{kind}_result_given_{spec}"] = _donating(jax.jit(
                lambda a: a * 2, donate_argnums=0, out_shardings=given), split())
        out[f"{kind}_two_donated_result_given"] = _donating(jax.jit(
            lambda a, b: a + b, donate_argnums=(0, 1), out_shardings=s), split(), split())
        out[f"{kind}_in_shardings_given"] = _donating(jax.jit(
            lambda a: a.sum(0), donate_argnums=0, in_shardings=s,
            out_shardings=sh.NamedSharding(mesh, P())), jnp.ones((8, 2)))
        with jax.set_mesh(mesh):
            out[f"{kind}_set_mesh_usable"] = _donating(jax.jit(lambda a: a * 2, donate_argnums=0),
                                                       split())
            out[f"{kind}_set_mesh_other_shape"] = _donating(jax.jit(
                lambda a: a.sum(0), donate_argnums=0), split())
            out[f"{kind}_set_mesh_result_given"] = _donating(jax.jit(
                lambda a: a.sum(0), donate_argnums=0, out_shardings=P()), split())
    return out


def _class_of(fun):
    """The class of what `fun` raises and the first line of its words, or its result."""
    try:
        return ["no error", enc(fun())]
    except Exception as e:
        return [type(e).__name__, str(e).split("\n", 1)[0]]


def custom_partitioning_error_cases(jax):
    """(stop 70) custom_partitioning's function closing over an array or a tracer: JAX's
    AssertionError (scalars stay closed over; the first line compared: JAX's is empty); a
    per-device function closing over the caller's tracer, and inspect_array_sharding's
    callback raising, fail inside XLA's compile: jaxlib's JaxRuntimeError as it is, as JAX's."""
    jnp, sh = jax.numpy, jax.sharding
    cp = importlib.import_module(jax.__name__ + ".experimental.custom_partitioning")
    P = sh.PartitionSpec
    mesh = sh.Mesh(np.array(jax.devices()), ("x",))

    def made(fun, lower_fn=None):
        f = cp.custom_partitioning(fun)
        f.def_partition(partition=lambda mesh, a, r: (mesh, lower_fn or fun, r.sharding,
                                                      (a[0].sharding,)), sharding_rule="i -> i")
        return f
    x = jnp.arange(8.0)
    table, grid = jnp.arange(8.0), np.arange(8.0, dtype=np.float32)
    out = {
        "closes_over_an_array": _class_of(lambda: made(lambda a: a + table)(x)),
        "closes_over_a_numpy_array": _class_of(lambda: made(lambda a: a + grid)(x)),
        "closes_over_an_array_in_a_jit": _class_of(lambda: jax.jit(made(lambda a: a + table))(x)),
        "closes_over_a_tracer": _class_of(lambda: jax.jit(
            lambda a, b: made(lambda c: c + b)(a))(x, x)),
        "closes_over_a_python_scalar": _class_of(lambda: made(lambda a: a + 2.0)(x)),
        "closes_over_a_jnp_scalar": _class_of(lambda: made(lambda a: a + jnp.float32(2.0))(x)),
        "closes_over_a_numpy_scalar": _class_of(lambda: made(lambda a: a + np.float32(2.0))(x)),
    }

    def fails(s):
        raise ValueError("the callback fails")

    def inspected(a):
        jax.debug.inspect_array_sharding(a, callback=fails)
        return a * 2
    with jax.set_mesh(mesh):
        split = jax.device_put(x, sh.NamedSharding(mesh, P("x")))
        out["per_device_function_closes_over_a_tracer"] = _class_of(lambda: jax.jit(
            lambda a, b: made(lambda c: c + 1.0, lambda c: c + b.sum())(a))(split, split))
        out["over_a_jit_tracer_in_a_mesh_jit"] = _class_of(lambda: jax.jit(
            lambda a, b: made(lambda c: c + b)(a))(split, split))
    out["inspect_callback_fails"] = _class_of(lambda: jax.jit(inspected)(jax.device_put(
        x, sh.NamedSharding(mesh, P("x")))))
    return out


def loaded_pytree_cases(jax):
    """(stop 70) A Compiled, and one loaded from bytes, called with arguments of another
    pytree: JAX's TypeError words, a leaf given where a node was compiled named "pytree leaf"."""
    jnp = jax.numpy
    se = importlib.import_module(jax.__name__ + ".experimental.serialize_executable")
    x = jnp.ones(3)
    out = {}
    for name, f, args, calls in (
            ("dict", lambda d, b: d["u"] + b, ({"u": x}, x),
             [((x, x), {}), (((x,), x), {}), (({"v": x}, x), {}), (({"u": x},), {}),
              (({"u": x}, x, x), {}), (({"u": x},), {"b": x})]),
            ("none", lambda a, b: a, (x, None), [((x, x), {}), ((x,), {}), ((x, (None,)), {})]),
            ("list", lambda a: a[0] + a[1], ([x, x],),
             [(((x, x),), {}), (([x],), {}), ((x,), {})])):
        compiled = jax.jit(f).lower(*args).compile()
        loaded = se.deserialize_and_load(*se.serialize(compiled))
        out[name] = [[_message(lambda: c(*a, **k)) for a, k in calls]
                     for c in (compiled, loaded)]
    return out


def set_mesh_stage_cases(jax):
    """(stop 70) `.lower()` of a jit under set_mesh, its arguments host data or none: lowered
    over the mesh's devices, as a call runs it (it was lowered for one device); the compiled
    program's result shardings, and what lowering, compiling and a call compile."""
    jnp, sh = jax.numpy, jax.sharding
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    lax, out = jax.lax, {}
    for kind in ("Explicit", "Auto"):
        mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(getattr(sh.AxisType, kind),) * 2)
        with jax.set_mesh(mesh):
            f = jax.jit(lambda x: x * 2)
            with jtu.count_jit_compilation_cache_miss() as compiled:
                lowered = f.lower(np.ones(8, np.float32))
                program = lowered.compile()
                called = f(np.ones(8, np.float32))
            out[kind] = [lowered.as_text().splitlines()[0], repr(program.output_shardings),
                         repr(called.sharding), compiled()]
            out[f"{kind}_no_arguments"] = [
                repr(jax.jit(lambda: jnp.ones(3)).lower().compile().output_shardings),
                repr(jax.jit(lambda: lax.create_token()).lower().compile().output_shardings)]
    return out


def run_mesh(jax) -> dict:
    return {"serialize": serialize_mesh_cases(jax), "under_a_jit": under_a_jit_cases(jax),
            "jit_caches": jit_cache_mesh_cases(jax),
            "custom_partitioning": custom_partitioning_mesh_cases(jax),
            "compiled_call_shardings": compiled_call_shardings_cases(jax),
            "tokens": token_mesh_cases(jax), "token_loops": token_loops_mesh_cases(jax),
            "donation": donation_mesh_cases(jax),
            "custom_partitioning_errors": custom_partitioning_error_cases(jax),
            "loaded_pytrees": loaded_pytree_cases(jax),
            "set_mesh_stages": set_mesh_stage_cases(jax)}
