"""Where results land over 8 CPU devices, and what shard_map and pmap give, as JAX 0.10.2 does
(gaps JAX's multi_device_test.py, pmap_test.py and shard_map_test.py found at stop 79).
Recorded by reference/make_multi_device_gaps_reference.py (8 simulated CPU devices) into
tests/data/multi_device_gaps_reference.json; tests/sharding/test_multi_device_gaps.py compares.
Each case gives plain facts: a result's devices, whether it is committed, its sharding's
class and spec, values as lists, or an error's class and words."""
import importlib

import numpy as np


def placement(x) -> dict:
    """Where `x` lives: its sharding's class, device ids, spec (if named) and commitment."""
    s = x.sharding
    return {"sharding": type(s).__name__, "devices": sorted(d.id for d in s.device_set),
            "spec": str(getattr(s, "spec", None)), "committed": bool(x._committed),
            "shape": list(x.shape)}


def _full_like(jax):
    jnp, lax = jax.numpy, jax.lax
    d1 = jax.devices()[1]
    x = jax.device_put(jnp.ones((4, 4)), d1)
    return {"same shape": placement(lax.full_like(x, 1.0)),
            "scalar shape": placement(lax.full_like(x, 1.0, shape=())),
            "other shape": placement(lax.full_like(jnp.arange(10, device=d1), 1, shape=(5,))),
            "uncommitted": placement(lax.full_like(jnp.ones(3), 1.0, shape=(2,)))}


def _keys(jax):
    random = jax.random
    d1 = jax.devices()[1]
    legacy = jax.device_put(random.PRNGKey(0), d1)
    typed = jax.device_put(random.key(0), d1)
    return {"normal of a legacy key": placement(random.normal(legacy, ())),
            "uniform of a typed key": placement(random.uniform(typed, (2,))),
            "split of a typed key": placement(random.key_data(random.split(typed))),
            "jit of a typed key": placement(random.key_data(jax.jit(lambda k: k)(typed))),
            "uncommitted": placement(random.normal(random.key(1), ()))}


def _empty_index(jax):
    jnp = jax.numpy
    d1 = jax.devices()[1]
    x = jnp.asarray([[1, 2], [3, 4]], device=d1)
    return {"empty mask": placement(x[jnp.asarray([False, False], device=d1)]),
            "empty integer index": placement(x[np.array([], np.int32)]),
            "mask of one": placement(x[jnp.asarray([True, False], device=d1)]),
            "uncommitted": placement(jnp.ones(2)[np.array([], np.int32)])}


def values(x) -> dict:
    return {"dtype": str(x.dtype), "values": np.asarray(x).tolist()}


def _psum_of_bools(jax):
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    x = jnp.array([True, True, False, True])
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))
    return {"pmap psum": values(jax.pmap(lambda v: lax.psum(v, "i"), "i")(x)),
            "pmap pmean": values(jax.pmap(lambda v: lax.pmean(v, "i"), "i")(x)),
            "shard_map psum": values(jax.shard_map(lambda v: lax.psum(v, "i"), mesh=mesh,
                                                   in_specs=P("i"), out_specs=P())(x)),
            "vmap psum": values(jax.vmap(lambda v: lax.psum(v, "i"), axis_name="i")(x))}


def _uneven_groups(jax):
    lax = jax.lax
    groups = [[0, 1], np.arange(2, 8)]
    x = np.arange(8.0, dtype=np.float32)
    return {op.__name__: values(jax.pmap(lambda v: op(v, "i", axis_index_groups=groups),
                                         "i")(x))
            for op in (lax.psum, lax.pmax, lax.pmin)}


def _compile_options_over_a_mesh(jax):
    lax = jax.lax
    f = jax.pmap(lambda v: v - lax.pmean(v, "i"), axis_name="i")
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    lowered = f.lower(x)
    out = {"embedded IR": values(lowered.compile(
        compiler_options={"xla_embed_ir_in_executable": True})(x)),
        "plain, after": values(lowered.compile()(x)), "call": values(f(x))}
    for name, bad, words in [("unknown name", {"invalid_key": "v"}, "No such compile option"),
                             ("bad value", {"xla_embed_ir_in_executable": "v"},
                              "is not a valid bool value")]:
        try:
            lowered.compile(compiler_options=bad)
            out[name] = "no error"
        except jax.errors.JaxRuntimeError as e:
            out[name] = ["JaxRuntimeError", words in str(e)]
    return out


def _pmap_lower(jax):
    lax = jax.lax
    f = jax.pmap(lambda v: v - lax.pmean(v, "i"), axis_name="i")
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    aval = jax.core.ShapedArray(x.shape, x.dtype)
    lowered = f.lower(x)
    return {"lower of a ShapedArray": values(f.lower(aval).compile()(x)),
            "no kwargs flags": [lowered._no_kwargs, lowered.compile()._no_kwargs],
            "in_avals": str(lowered.in_avals)}


def error(thunk) -> list:
    try:
        thunk()
        return ["no error"]
    except Exception as e:
        return [type(e).__name__, str(e)]


def _pmap_statics(jax):
    f = jax.pmap(lambda x, y: x + 3, static_broadcasted_argnums=(1,))
    x = np.arange(2)
    return {"an array": error(lambda: f(x, np.asarray(1))),
            "a list": error(lambda: f(x, [1, 2])),
            "hashable": values(f(x, (1, 2)))}


def _per_device_arrays(jax):
    devices = jax.local_devices()
    api = importlib.import_module(jax.__name__ + "._src.api")      # (deprecated in jax.)
    y = api.device_put_sharded([np.arange(i, i + 2) for i in range(len(devices))], devices)
    z = jax.pmap(lambda v: v)(np.arange(16).reshape(8, 2))
    unread = z._npy_value is None
    rows = [type(z[i]).__name__ for i in range(2)]
    return {"device_put_sharded": [[sorted(d.id for d in b.devices()), np.asarray(b).tolist()]
                                   for b in y._arrays],
            "pmap result": [sorted(d.id for d in b.devices()) for b in z._arrays],
            "one device": [np.asarray(b).tolist() for b in jax.numpy.arange(3)._arrays],
            "unread after pmap and indexing": [unread, rows, z._npy_value is None]}


def _device_put_sharded_in_place(jax):
    api = importlib.import_module(jax.__name__ + "._src.api")      # (deprecated in jax.)
    devices = jax.devices()
    parts = [jax.device_put(np.float32(i), d) for i, d in zip(range(8), devices)]
    with jax.transfer_guard("disallow_explicit"):
        y = api.device_put_sharded(parts, devices)
    return {"value": values(y), "placement": placement(y),
            "blocks": [sorted(d.id for d in b.devices()) for b in y._arrays]}


def _checked_shard_map(jax):
    """jax_enable_checks on: jaxprs traced inside a check_vma body (a jit's), checked."""
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    jax.config.update("jax_enable_checks", True)
    try:
        index = jax.shard_map(jax.jit(lambda: lax.axis_index("x")[None]), mesh=mesh,
                              in_specs=(), out_specs=P("x"))()
        scaled = jax.shard_map(jax.jit(lambda v: v * 2.0 + lax.axis_index("x")), mesh=mesh,
                               in_specs=P("x"), out_specs=P("x"))(jnp.arange(4.0))
        cond = jax.jit(jax.shard_map(
            lambda v: lax.cond(v[0] > 1, lambda: v + 1, lambda: v - 1), mesh=mesh,
            in_specs=P("x"), out_specs=P("x")))(jnp.arange(4.0))
    finally:
        jax.config.update("jax_enable_checks", False)
    return {"axis_index": values(index), "scaled": values(scaled), "cond": values(cond)}


def _body_abstract_mesh(jax):
    """get_abstract_mesh() in shard_map bodies: the mesh, its manual axes Manual."""
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 2, 2), ("x", "y", "z"))
    seen = []

    def look(tag):
        m = jax.sharding.get_abstract_mesh()
        seen.append([tag, list(m.manual_axes), list(m.auto_axes), str(m.axis_types)])

    def inner(v):
        look("inner")
        return v

    def outer(v):
        look("outer")
        return jax.shard_map(inner, in_specs=P(None, "y"), out_specs=P(None, "y"),
                             axis_names={"y"})(v)

    x = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    with jax.set_mesh(mesh):
        look("set_mesh")
        out = jax.jit(jax.shard_map(outer, in_specs=P("x"), out_specs=P("x"),
                                    axis_names={"x"}))(x)
    look("after")
    return {"seen": seen, "out": values(out)}


def _shard_map_spec_errors(jax):
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    empty = importlib.import_module(jax.__name__ + "._src.mesh").empty_concrete_mesh

    def call(specs, *args):
        return jax.shard_map(lambda *a: a[0], mesh=mesh, in_specs=specs, out_specs=P())(*args)

    scalar, vector = np.float32(1.0), np.ones(4, np.float32)
    return {"a scalar, P(None) of a tuple": error(lambda: call((P(None),), scalar)),
            "a scalar, one P for all": error(lambda: call(P("x"), scalar)),
            "nested": error(lambda: call(((P(), P("x", None)),), (vector, vector))),
            "empty mesh": error(lambda: jax.shard_map(
                lambda v: v, mesh=empty, in_specs=P("x"), out_specs=P("x"))(vector))}


def _carry_vma_advice(jax):
    """A scan or while carry whose varying axes change in a shard_map body: JAX's words."""
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("i", "j"))
    x = jnp.arange(3.0)

    def run(body):
        return error(lambda: jax.shard_map(body, mesh=mesh, in_specs=(P("i"), P()),
                                           out_specs=P("i"))(x, x))

    swap = lambda c, _: ((c[1], c[0]), ())  # noqa: E731
    both = lambda c, _: ((c[0] + lax.axis_index("i"), c[1] + lax.axis_index("i")),  # noqa: E731
                         ())
    return {"swapped": run(lambda a, b: lax.scan(swap, (a, b), (), length=2)[0][0]),
            "two gain": run(lambda a, b: lax.scan(both, (b, b), (), length=2)[0][0] + a),
            "while": run(lambda a, b: lax.while_loop(lambda c: c[1][0] < 3,
                                                     lambda c: (c[1], c[0]), (a, b))[0])}


def _strict_leaves(jax):
    tu = importlib.import_module(jax.__name__ + "._src.tree_util")
    trees = {"1": 1, "None": None, "(1,)": (1,), "[]": [], "{'a': 1}": {"a": 1},
             "array": np.ones(2)}
    return {name: tu.treedef_is_strict_leaf(tu.tree_structure(t)) for name, t in trees.items()}


def _vjp_jaxpr(jax):
    jnp = jax.numpy
    sin2 = lambda v: jnp.sin(jnp.sin(v))  # noqa: E731
    out = {"text": str(jax.vjp(sin2, 1.0)[1].jaxpr)}
    policies = {"save cos": lambda prim, *_, **__: str(prim) == "cos",
                "save sin": lambda prim, *_, **__: str(prim) == "sin",
                "save nothing": lambda *_, **__: False}
    for where, g in (("plain", sin2), ("jit", jax.jit(sin2))):
        for name, policy in policies.items():
            text = str(jax.vjp(jax.checkpoint(g, policy=policy), jnp.arange(1.0))[1].jaxpr)
            out[f"{where}, {name}: sin, cos"] = [text.count(" sin "), text.count(" cos ")]
    return out


def _axis_env(jax):
    jnp = jax.numpy
    core = importlib.import_module(jax.__name__ + "._src.core")
    seen = []

    def g(x):
        env = core.get_axis_env()
        seen.append([list(env.axis_names()), env.axis_exists("i"), env.axis_exists("j")])
        return x

    jax.vmap(lambda y: jax.pmap(g, axis_name="j")(jnp.array([y])), axis_name="i")(jnp.ones(2))
    jax.grad(lambda x: jax.pmap(g)(jnp.array([x]))[0])(3.0)
    sizes = jax.vmap(lambda x: core.get_axis_env().axis_size("i"), axis_name="i")(jnp.ones(3))
    return {"seen": seen, "sizes": values(sizes), "outside": list(core.get_axis_env().axis_names()),
            "unbound": error(lambda: core.get_axis_env().axis_size("z"))}


def _persistent_cache_events(jax):
    import tempfile
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    count = jtu.count_compilation_after_persistent_cache_miss
    f = lambda v: v * 3 + 1  # noqa: E731
    out = {}
    with count() as n:
        jax.jit(f)(np.float32(1.0))
    out["no persistent cache"] = n()
    old = (jax.config.jax_compilation_cache_dir,
           jax.config.jax_persistent_cache_min_compile_time_secs)
    with tempfile.TemporaryDirectory() as where:
        jax.config.update("jax_compilation_cache_dir", where)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        try:
            g = lambda v: v * 5 - 2  # noqa: E731
            with count() as n:
                jax.jit(g)(np.float32(2.0))
            out["first compile"] = n()
            jax.clear_caches()
            with count() as n:
                jax.jit(g)(np.float32(2.0))
            out["from the disk"] = n()
        finally:
            for name, value in zip(("jax_compilation_cache_dir",
                                    "jax_persistent_cache_min_compile_time_secs"), old):
                jax.config.update(name, value)
    # (turned off later, JAX's cache still counts: it decides once per process whether it is
    # used, at the first compile; not compared)
    return out


def _cond_branches_off_in_sharding(jax):
    """lax.cond branches whose leaves differ in sharding (an Explicit mesh) or in the manual
    axes they vary over (a check_vma shard_map body) at two leaves, or in sharding at one and
    in dtype at another: JAX's bullet for each leaf (stop 104: jxkernel named the first only),
    the lines naming each branch's function and file left out."""
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    explicit = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,),
                             devices=jax.devices()[:2])
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))

    def words(thunk):
        said = error(thunk)
        return said[:1] + [line for line in said[1:2][0].splitlines()
                           if not line.startswith(("true_fun is ", "false_fun is "))] \
            if len(said) > 1 else said

    out = {}
    with jax.set_mesh(explicit):
        a = jax.device_put(jnp.arange(4.0), jax.sharding.NamedSharding(explicit, P("x")))
        out["two leaves sharded otherwise"] = words(lambda: lax.cond(
            True, lambda v: (v, v), lambda v: (jax.sharding.reshard(v, P()),
                                               jax.sharding.reshard(v, P())), a))
        out["a sharded leaf and a dtype leaf"] = words(lambda: lax.cond(
            True, lambda v: (v, v), lambda v: (jax.sharding.reshard(v, P()),
                                               v.astype(jnp.int32)), a))
    body = jax.shard_map(lambda v, c: lax.cond(v[0] > 0, lambda: (v, v), lambda: (c, c)),
                         mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"))
    out["two leaves varying otherwise"] = words(lambda: body(jnp.arange(4.0), jnp.ones(2)))
    return out


CASES = {name: globals()["_" + name] for name in (
    "full_like",
    "keys",
    "empty_index",
    "psum_of_bools",
    "uneven_groups",
    "compile_options_over_a_mesh",
    "pmap_lower",
    "pmap_statics",
    "per_device_arrays",
    "device_put_sharded_in_place",
    "vjp_jaxpr",
    "strict_leaves",
    "checked_shard_map",
    "shard_map_spec_errors",
    "carry_vma_advice",
    "body_abstract_mesh",
    "axis_env",
    "persistent_cache_events",
    "cond_branches_off_in_sharding")}


def run(jax) -> dict:
    """{case: its facts}, on 8 devices."""
    assert jax.device_count() == 8, jax.devices()
    out = {}
    for name, case in CASES.items():
        try:
            out[name] = case(jax)
        except Exception as e:       # one case's failure is its answer, not the others'
            out[name] = {"error": type(e).__name__, "message": str(e)}
    return out
