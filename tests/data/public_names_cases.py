"""Cases for the names of JAX's public API that jxkernel added (tests/jax_compat/test_public_names.py lists
them): `run(jax)` answers each with JAX (reference/make_public_names_reference.py records it in
public_names_reference.json) and with jxkernel (the tests compare, exactly: every case is
integers, bits, dtypes, shapes or text, or floats exact by construction).

Arrays are written as {"dtype", "shape", "bits"}: their bytes in hex, so float8 and int4 values
compare bit for bit."""
import re

import numpy as np


def enc(x):
    """An array (or a pytree of them) as JSON: dtype, shape and its bytes in hex."""
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, dict):
        return {k: enc(v) for k, v in x.items()}
    if isinstance(x, (str, bool, int, float)) or x is None:
        return x
    a = np.asarray(x)
    if a.dtype.itemsize == 0 or a.dtype.kind == "V":     # extended dtypes have no bytes
        return {"dtype": str(x.dtype), "shape": list(a.shape)}
    return {"dtype": str(a.dtype), "shape": list(a.shape), "bits": a.tobytes().hex(),
            "weak": bool(getattr(x, "weak_type", False))}


def outcome(fun):
    """What `fun()` returns, encoded, or the class of what it raises."""
    try:
        return enc(fun())
    except Exception as e:   # the class is the contract; the wording is checked apart
        return f"raises {type(e).__name__}"


def warned(fun):
    """fun()'s value, encoded, and the categories of the warnings it gave."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fun()
    return [enc(value), [w.category.__name__ for w in caught]]


def fwd_and_bwd_case(jax):
    jnp = jax.numpy
    # (w not weakly typed: jxkernel's vjp gives a weak primal a weak cotangent, JAX's not)
    x, w = jnp.arange(4.0).reshape(2, 2), jnp.full((2, 2), 2.0, jnp.float32)
    fwd, bwd = jax.fwd_and_bwd(lambda a, b: a @ b, argnums=(0, 1))
    y, res = fwd(x, w)
    out = [enc(y), enc(bwd(res, jnp.ones((2, 2)))), enc(bwd(fwd(w, x)[1], x))]
    fwd, bwd = jax.fwd_and_bwd(lambda a, b: (a * b, {"a": a}), argnums=1, has_aux=True,
                               jitted=False)
    y, res, aux = fwd(x, w)
    out += [enc(y), enc(aux), enc(bwd(res, jnp.ones((2, 2))))]
    out.append(outcome(lambda: jax.fwd_and_bwd(3, argnums=0)))
    return out


def api_cases(jax):
    """The root's small utilities."""
    jnp, ArrayLike, DTypeLike = jax.numpy, jax.typing.ArrayLike, jax.typing.DTypeLike
    x = {"a": jnp.arange(3.0), "b": (1, "s")}
    return {
        "typing_arraylike": [isinstance(v, ArrayLike) for v in (
            jnp.ones(2), np.ones(2), 1.5, 2, True, 1j, np.int8(3), np.float32(1), [1, 2],
            (1,), "a", None)],
        "typing_dtypelike_args": sorted(getattr(a, "__name__", str(a)) for a in DTypeLike.__args__),
        "process_indices": jax.process_indices(),
        "lib_version": jax.lib.__version__,           # the jaxlib both run on
        "host_id_count_ids": warned(lambda: [jax.host_id(), jax.host_count(), jax.host_ids()]),
        "copy_to_host_async": [jax.copy_to_host_async(x) is x, enc(np.asarray(x["a"]))],
        "fwd_and_bwd": fwd_and_bwd_case(jax),
        "make_array_from_process_local_data": [
            enc(jax.make_array_from_process_local_data(jax.devices()[0], np.arange(3.0))),
            enc(jax.make_array_from_process_local_data(
                jax.devices()[0], {"a": np.ones(2, np.int8), "b": np.int32(3)})),
            message(lambda: jax.make_array_from_process_local_data(
                jax.devices()[0], np.arange(4.0), (8,)))],
    }


def api_mesh_cases(jax):
    """make_array_from_process_local_data onto a one-device mesh (an array laid out on a mesh:
    XLA's backends only)."""
    mesh = jax.make_mesh((1,), ("x",))
    return {
        "make_array_from_process_local_data_mesh": [
            # (shape and dtype only: reading a mesh-sharded Array's value goes through
            # jaxlib's per-device list, which tries `import jax`)
            [list(v.shape) + [str(v.dtype)] for v in [jax.make_array_from_process_local_data(
                jax.sharding.NamedSharding(mesh, jax.P("x")), np.arange(4), (4,))]],
            str(jax.make_array_from_process_local_data(
                jax.sharding.NamedSharding(mesh, jax.P("x")), np.arange(4)).sharding.spec)],
    }


def lax_cases(jax):
    """stack, unstack, tile, mulhi, lax.dtype, rng_bit_generator, rng_uniform."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.arange(6.0).reshape(2, 3)
    pd = lambda v: lax.platform_dependent(v, tpu=jnp.sin, cuda=jnp.cos, default=lambda u: u * 2)
    m = jnp.array([[1.0, 5.0, 3.0, -2.0], [4.0, 2.0, 6.0, 0.5], [7.0, -1.0, 0.0, 9.0]])
    key = jnp.array([1, 2, 3, 4], jnp.uint32)
    keys = jnp.stack([key, key + 1, key * 7])
    a = np.array([-7, 2 ** 30, -2 ** 31, 123456789, 0, -1], np.int32)
    b = np.array([3, 7, -2 ** 31, 987654321, 5, -1], np.int32)
    # one program per dtype: XLA's CPU fusion has no mulhi (JAX's jit of several fails too)
    mulhi = lambda a, b: [lax.mulhi(a.astype(t), b.astype(t)) for t in (
        jnp.int8, jnp.int16, jnp.int32, jnp.uint8, jnp.uint16, jnp.uint32)]
    jaxpr = lambda f, *args: str(jax.make_jaxpr(f)(*args))
    return {
        "stack": enc([lax.stack([x, x + 1], axis=a_) for a_ in (0, 1, 2, -1)]),
        "stack_jaxpr": jaxpr(lambda a: lax.stack([a, a], 2), x),
        "unstack": enc([lax.unstack(x, axis=a_) for a_ in (0, 1, -1)]),
        "unstack_jaxpr": jaxpr(lambda a: lax.unstack(a, 1), x),
        "tile": enc([lax.tile(x, (2, 1)), lax.tile(x, (1, 3)), lax.tile(jnp.int8(3), ())]),
        "tile_jaxpr": jaxpr(lambda a: lax.tile(a, (2, 2)), x),
        "stack_unstack_tile_grad": enc(jax.grad(lambda a: (lax.stack([a, 2 * a], 1) ** 2).sum()
                                                + (lax.unstack(a, 1)[2] ** 3).sum()
                                                + (lax.tile(a, (2, 3)) ** 2).sum())(x)),
        # (lax.stack([]) is an IndexError in JAX's wrapper; jxkernel raises its shape rule's
        # ValueError, "stack expects at least one operand, got 0.")
        "stack_errors": [outcome(lambda: lax.stack([x, x.T])),
                         outcome(lambda: lax.stack([x, x.astype(jnp.int32)])),
                         outcome(lambda: lax.unstack(jnp.float32(1))),
                         outcome(lambda: lax.tile(x, (2,)))],
        "mulhi": enc(mulhi(a, b)),
        "mulhi_jaxpr": jaxpr(lax.mulhi, a, b),
        "mulhi_float": outcome(lambda: lax.mulhi(1.0, 2.0)),
        "dtype": [str(lax.dtype(v)) for v in (1.0, 1, True, 1j, np.float64, np.int16, "bfloat16",
                                               np.arange(3, dtype=np.uint8), x, int, float)],
        "rng_bit_generator": enc([lax.rng_bit_generator(key, (3,), dtype=d, algorithm=alg)
                                  for d in (jnp.uint8, jnp.uint16, jnp.uint32)
                                  for alg in lax.RandomAlgorithm]),
        "rng_bit_generator_2d": enc(lax.rng_bit_generator(key, (2, 3))),
        "rng_bit_generator_jit_vmap": enc(jax.jit(jax.vmap(
            lambda k: lax.rng_bit_generator(k, (2,))))(keys)),
        "rng_bit_generator_jaxpr": jaxpr(lambda k: lax.rng_bit_generator(k, (3,)), key),
        # (a key of another shape fails an assert in JAX's lowering; jxkernel's TypeError names
        # it: tests/jax_compat/test_public_names.py)
        "rng_bit_generator_errors": [outcome(lambda: lax.rng_bit_generator(key, (2,), jnp.int32))],
        "random_algorithm": [str(a_) for a_ in lax.RandomAlgorithm] + [int(a_) for a_ in lax.RandomAlgorithm],
        "rng_uniform_jaxpr": jaxpr(lambda a, b: lax.rng_uniform(a, b, (2,)), 0.0, 1.0),
        "index_take": enc([lax.index_take(jnp.arange(24.0).reshape(2, 3, 4),
                                          [jnp.array([0, 1, -1]), jnp.array([3, 0, 5])], (1, 2)),
                           lax.index_take(jnp.arange(6).reshape(2, 3), [jnp.array([0, -1])], (1,))]),
        "broadcast_like": enc([lax.broadcast_like(jnp.array([1, 2, 3]), jnp.zeros((2, 3))),
                               lax.broadcast_like(2.0, jnp.zeros(2, jnp.int8)),
                               lax.broadcast_like(x, x)]),
        "broadcast_like_jaxpr": jaxpr(lambda v: lax.broadcast_like(v, x), jnp.ones(3)),
        "broadcast_like_error": outcome(lambda: lax.broadcast_like(jnp.ones(2), x)),
        "shape_as_value": enc([lax.shape_as_value((2, 3)), lax.shape_as_value(())]),
        # (lax.empty's values are unspecified: zeros on CPU, recorded as such)
        "empty": enc([lax.empty(3, jnp.float32), lax.empty((), "int32"),
                      jax.vmap(lambda v: lax.empty((2,), jnp.float32) + v)(jnp.ones(3))]),
        "approx_k": enc([lax.approx_max_k(m, 2), lax.approx_min_k(m, 2), lax.approx_max_k(m, 1, 0),
                         lax.approx_min_k(m, 2, reduction_dimension=0, recall_target=0.9),
                         jax.jit(jax.vmap(lambda r: lax.approx_min_k(r, 3)))(m),
                         jax.vmap(lambda r: lax.approx_max_k(r, 1, 0), 1)(m),
                         jax.grad(lambda v: (lax.approx_max_k(v, 2)[0] ** 2).sum())(m),
                         jax.jvp(lambda v: lax.approx_min_k(v, 2, 0)[0], (m,), (m * 3,))]),
        "approx_k_jaxpr": jaxpr(lambda v: lax.approx_max_k(v, 2), m),
        "approx_k_errors": [outcome(lambda: lax.approx_max_k(m, 5)),
                            outcome(lambda: lax.approx_max_k(m.astype(jnp.int32), 2)),
                            outcome(lambda: lax.approx_min_k(m, 0))],
        "platform_dependent": enc([
            lax.platform_dependent(jnp.float32(2), cpu=lambda v: v * 10, default=lambda v: v),
            jax.jit(pd)(jnp.float32(3)), jax.vmap(jax.jit(pd))(jnp.arange(3.0)),
            jax.grad(lambda v: lax.platform_dependent(v, cpu=lambda u: u ** 3))(2.0),
            jax.jit(lambda v: lax.platform_dependent(v, cuda=jnp.sin, rocm=jnp.sin,
                                                     default=jnp.negative))(jnp.float32(1))]),
        # (without the cond's branches_platforms, which both print: compared whole in
        # tests/data/export_platforms_cases.py)
        "platform_dependent_jaxpr": re.sub(r"\n *branches_platforms=.*", "",
                                           jaxpr(pd, jnp.float32(3))),
        "platform_dependent_errors": [outcome(lambda: lax.platform_dependent(1.0, tpu=jnp.sin)),
                                      outcome(lambda: lax.platform_dependent(1.0, gpu=jnp.sin)),
                                      outcome(lambda: lax.platform_dependent(1.0, cpu=3))],
        "rng_uniform_errors": [outcome(lambda: lax.rng_uniform(0.0, jnp.int32(1), (2,))),
                               outcome(lambda: lax.rng_uniform(jnp.zeros(2), 1.0, (2,))),
                               outcome(lambda: jax.grad(lambda a: lax.rng_uniform(a, 2.0, ()))(1.0))],
    }


def custom_batching_cases(jax):
    """custom_vmap and sequential_vmap: values, what the rule was called with, jaxprs."""
    jnp = jax.numpy
    calls = []

    @jax.custom_batching.custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        calls.append([axis_size, list(in_batched)])
        return xs * ys, True

    @jax.custom_batching.custom_vmap
    def two(x, pair):                    # pytree arguments and outputs
        return {"s": x + pair[0], "p": pair[1] * 2.0}

    @two.def_vmap
    def two_rule(axis_size, in_batched, x, pair):
        calls.append([axis_size, in_batched[0], list(in_batched[1])])
        return {"s": x - pair[0], "p": pair[1] * 3.0}, {"s": in_batched[0] or in_batched[1][0],
                                                         "p": in_batched[1][1]}

    @jax.custom_batching.sequential_vmap
    def g(x, y):
        return jnp.sum(x) * y

    @jax.custom_batching.custom_vmap
    def bad(x):
        return x

    @bad.def_vmap
    def bad_rule(axis_size, in_batched, x):
        return (x, x), True

    xs, ys = jnp.arange(3.0), jnp.arange(1.0, 4.0)
    out = {
        "eager": enc(f(xs, ys)),
        "vmap": enc(jax.vmap(f)(xs, ys)),
        "jit_vmap": enc(jax.jit(jax.vmap(f))(xs, ys)),
        "vmap_jit": enc(jax.vmap(jax.jit(f))(xs, ys)),
        "vmap_one_batched": enc(jax.vmap(f, (None, 0))(2.0, ys)),
        "vmap_vmap": enc(jax.vmap(jax.vmap(f))(jnp.ones((2, 3)), jnp.full((2, 3), 3.0))),
        "pytrees": enc(jax.vmap(two, (0, (None, 0)))(xs, (1.0, ys))),
        "jvp_of_vmap": enc(jax.jvp(jax.vmap(f), (xs, ys), (jnp.ones(3), jnp.zeros(3)))),
        "vmap_of_jvp": enc(jax.vmap(lambda x, y: jax.jvp(f, (x, y), (1.0, 0.0)))(xs, ys)),
        "vmap_of_jvp_batched_tangents": enc(jax.vmap(lambda x, t: jax.jvp(
            lambda a: f(a, 2.0), (x,), (t,)))(xs, ys)),
        "jvp": enc(jax.jvp(f, (1.0, 2.0), (1.0, 1.0))),
        "sequential": enc(jax.vmap(g, (0, None))(jnp.ones((3, 2)), 2.0)),
        "sequential_jaxpr_eqns": [e.primitive.name for e in
                                  jax.make_jaxpr(jax.vmap(g, (0, None)))(jnp.ones((3, 2)), 2.0).eqns],
        "jaxpr": re.sub(r"rule=.*", "rule=<the rule>", str(jax.make_jaxpr(f)(1.0, 2.0))),
        "grad": outcome(lambda: jax.grad(lambda x: f(x, 2.0))(1.0)),
        "bad_rule": outcome(lambda: jax.vmap(bad)(xs)),
        "no_rule": outcome(lambda: jax.vmap(jax.custom_batching.custom_vmap(lambda x: x))(xs)),
    }
    out["calls"] = calls
    return out


def message(fun):
    """The class and text of what `fun()` raises."""
    try:
        fun()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return "no error"


def config_cases(jax):
    """The config states of the root: what each option changes."""
    jnp, lax = jax.numpy, jax.lax
    f = jax.jit(lambda x: x + 1)
    f(1.0)
    out = {}
    with jax.no_tracing():
        out["no_tracing"] = [outcome(lambda: f(2.0)), outcome(lambda: f(jnp.ones(2))),
                             jax.no_tracing.value]
    with jax.allow_f16_reductions(False):
        out["allow_f16_reductions"] = [
            outcome(lambda: jnp.sum(jnp.ones(3, jnp.float16))),
            message(lambda: lax.reduce_sum(jnp.ones(3, jnp.bfloat16), (0,))),
            message(lambda: jax.jit(lambda x: lax.reduce_sum(x, (0, 1)))(jnp.ones((2, 3), jnp.float16))),
            outcome(lambda: lax.reduce_sum(jnp.ones((1, 3), jnp.float16), (0,))),
            outcome(lambda: lax.reduce_sum(jnp.ones(3, jnp.float32), (0,)))]
    with jax.legacy_prng_key("error"):
        out["legacy_prng_key_error"] = [message(lambda: jax.random.normal(jax.random.PRNGKey(0))),
                                        outcome(lambda: jax.random.normal(jax.random.key(0)))]
    with jax.legacy_prng_key("warn"):
        out["legacy_prng_key_warn"] = warned(lambda: jax.random.uniform(jax.random.PRNGKey(0)))
    with jax.enable_custom_prng(True):
        raw = jnp.array([0, 7], jnp.uint32)
        out["enable_custom_prng"] = [
            str(jax.random.PRNGKey(1).dtype), str(jax.random.split(jax.random.PRNGKey(0)).dtype),
            warned(lambda: str(jax.random.fold_in(raw, 3).dtype)),
            warned(lambda: jax.random.normal(raw)),
            warned(lambda: jax.random.key_data(jax.random.split(raw, 3))),
            warned(lambda: str(jax.random.split(raw).dtype))]
    out["legacy_prng_key_bad"] = outcome(lambda: jax.config.update("jax_legacy_prng_key", "no"))
    with jax.enable_checks(True):
        out["enable_checks"] = enc(jax.jit(jax.grad(lambda x: jnp.cumsum(x * x * 3.0)[-1]))(jnp.ones(2)))
    with jax.explain_cache_misses():
        out["explain_cache_misses"] = jax.config.jax_explain_cache_misses
    out["defaults"] = [jax.explain_cache_misses.value, jax.enable_checks.value,
                       jax.no_tracing.value, jax.allow_f16_reductions.value,
                       str(jax.legacy_prng_key.value), jax.enable_custom_prng.value]
    return out


def ops_monitoring_cases(jax):
    """jax.ops's segment reductions; what jax.monitoring's listeners hear."""
    jnp, ops = jax.numpy, jax.ops
    data = jnp.arange(12.0).reshape(6, 2)
    ids = jnp.array([0, 2, 2, -1, 5, 1])       # -1 and 5 (>= num_segments) are dropped
    ints = jnp.array([3, -2, 7, 0, 5, 1], jnp.int8)
    out = {}
    for name in ("segment_sum", "segment_prod", "segment_max", "segment_min"):
        f = getattr(ops, name)
        out[name] = enc([f(data, ids, 4), f(data, ids, 4, bucket_size=4), f(ints, ids, 3),
                         f(data, ids, 4, indices_are_sorted=False, mode="clip"),
                         jax.jit(f, static_argnums=2)(data, ids, 3)])
        out[name + "_bool"] = outcome(lambda: f(jnp.array([True, False, True]),
                                                jnp.array([0, 0, 2]), 4))
    out["segment_sum_inferred"] = enc(ops.segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 1, 3])))
    out["segment_grads"] = enc([jax.grad(lambda d: getattr(ops, n)(d, ids, 4).sum())(data)
                                for n in ("segment_sum", "segment_max", "segment_min")])
    out["segment_under_jit_without_num"] = outcome(lambda: jax.jit(ops.segment_sum)(data, ids))
    out["segment_negative_num"] = outcome(lambda: ops.segment_sum(data, ids, -1))

    heard, v = [], jnp.ones(7)     # (eager operations compile too, in JAX: made before)
    listener = lambda event, secs, **kw: heard.append([event, kw])
    jax.monitoring.register_event_duration_secs_listener(listener)
    jax.jit(lambda x: x * 3 + 1)(v)
    jax.monitoring.unregister_event_duration_listener(listener)
    jax.jit(lambda x: x * 4 + 1)(v)          # heard by nobody
    out["monitoring_compile_durations"] = heard
    events = []
    jax.monitoring.register_event_listener(lambda e, **kw: events.append([e, kw]))
    jax.monitoring.register_scalar_listener(lambda e, v, **kw: events.append([e, v, kw]))
    jax.monitoring.record_event("/my/event", step=3)
    jax.monitoring.record_scalar("/my/scalar", 2.5, unit="s")
    jax.monitoring.clear_event_listeners()
    jax.monitoring.record_event("/my/event")
    out["monitoring_user_events"] = events
    out["monitoring_unregister_unknown"] = outcome(
        lambda: jax.monitoring.unregister_event_listener(print))
    return out


def state_cases(jax):
    """jax.ds slices (traced starts, clamped), jax.ref's functions, lax.stage."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.arange(24).reshape(2, 3, 4)

    @jax.jit
    def slices(x, i):
        r = jax.new_ref(jnp.zeros((3, 4), jnp.int32))
        r[jax.ds(i, 2), :] = jnp.ones((2, 4), jnp.int32)       # i=2 clamps to 1
        r[:, jax.ds(1, 2)] = jnp.full((3, 2), 7, jnp.int32)
        return [x[jax.ds(i, 1)], x[..., jax.ds(i, 2, 2)], x[0, jax.ds(i, 2), None],
                x[:, jax.ds(1, 2)], jax.freeze(r)]

    @jax.jit
    def refs(x):
        r = jax.empty_ref(jax.typeof(x))
        r[...] = x * 2
        jax.ref.addupdate(r, 0, 10)
        old = jax.ref.swap(r, 1, -1)
        jax.ref.set(r, 2, jax.ref.get(r, 0))
        return old, jax.freeze(r)

    r = jax.new_ref(jnp.arange(3.0))
    eager = [jax.ref.freeze(r), jax.free_ref(r)]
    return {
        "ds": [str(jax.ds(1, 3)), str(jax.ds(None)), str(jax.ds(3)), str(jax.ds(2, 3, 2))],
        "ds_indexing": enc(slices(x, 2)),
        "ds_grad": enc(jax.grad(lambda v: (v[jax.ds(1, 2)] ** 2).sum())(jnp.arange(4.0))),
        "refs": enc(refs(jnp.arange(4))),
        "refs_eager": [enc(eager[0]), list(eager[1])],
        "stage": enc([lax.stage(3), lax.stage(2.5), lax.stage(np.arange(3, dtype=np.int8)),
                      jax.jit(lambda v: lax.stage(v) * 2)(jnp.float32(2)),
                      jax.grad(lambda v: lax.stage(v) * lax.stage(v))(3.0),
                      jax.vmap(lax.stage)(jnp.arange(3.0))]),
        "stage_jaxpr": str(jax.make_jaxpr(lambda v: lax.stage(v) + lax.stage(2.0))(1.0)),
    }


def dot_cases(jax):
    """ragged_dot and ragged_dot_general in their three modes, under the transformations
    (small integers in floats: every result is exact)."""
    jnp, lax = jax.numpy, jax.lax
    R = lax.RaggedDotDimensionNumbers
    lhs = jnp.arange(12.0).reshape(4, 3) - 5
    rhs = jnp.arange(18.0).reshape(3, 3, 2) % 7 - 3          # (g, k, n)
    sizes = jnp.array([1, 0, 2], jnp.int32)                    # the last row is in no group
    b_lhs = jnp.arange(24.0).reshape(2, 4, 3) % 5              # (b, m, k)
    b_rhs = jnp.arange(36.0).reshape(3, 2, 3, 2) % 4 - 1       # (g, b, k, n)
    b_sizes = jnp.array([[2, 1, 1], [0, 3, 1]], jnp.int32)     # (b, g)
    contracting = R((([1], [0]), ([], [])), [1], [])           # groups of k: [g, m, n]
    batch = R((([2], [1]), ([0], [0])), [0], [])
    f = lambda l, r: lax.ragged_dot(l, r, sizes)

    @jax.jit               # (one program for all of them: the suite compiles it once)
    def values(lhs, rhs, b_lhs, b_rhs):
        return [
            [f(lhs, rhs), jax.jit(f)(lhs, rhs),
             lax.ragged_dot(lhs.astype(jnp.int8), rhs.astype(jnp.int8), sizes,
                            preferred_element_type=jnp.int32)],
            lax.ragged_dot_general(b_lhs, b_rhs, b_sizes, R((([2], [2]), ([0], [1])), [1], [0])),
            [lax.ragged_dot_general(lhs, rhs[0], sizes, contracting),
             lax.ragged_dot_general(b_lhs, b_rhs[0], b_sizes, R((([2], [1]), ([0], [0])), [2], []))],
            lax.ragged_dot_general(b_lhs, b_rhs[0], jnp.array([1, 1]), batch),
            jax.grad(lambda l, r: (f(l, r) ** 2).sum(), (0, 1))(lhs, rhs),
            jax.jvp(f, (lhs, rhs), (jnp.ones_like(lhs), rhs * 2))]
    out = dict(zip(("ragged_dot", "batched_group_sizes", "contracting", "batch", "grads", "jvp"),
                   enc(values(lhs, rhs, b_lhs, b_rhs))))
    out.update({
        # (no vmap: JAX 0.10.2's batching rule raises "ragged_dot vmap over any dim but 0 -
        # NYI" for these; tests/jax_compat/test_public_names.py checks jxkernel's against a loop)
        "errors": [outcome(lambda: lax.ragged_dot(lhs, rhs, sizes.astype(jnp.float32))),
                   outcome(lambda: lax.ragged_dot(lhs, rhs[:2], sizes)),
                   outcome(lambda: lax.ragged_dot_general(lhs, rhs, sizes, contracting)),
                   outcome(lambda: lax.ragged_dot_general(lhs, rhs, sizes,
                                                          R((([1], [1]), ([], [])), [1], [0]))),
                   outcome(lambda: lax.ragged_dot_general(lhs, rhs, sizes,
                                                          R((([1], [1]), ([], [])), [0, 1], [0])))],
    })
    # precision= as a dot algorithm: the CPU presets, by name or member, f16 and bf16 inputs,
    # a preferred type; an accelerator's preset or a DotAlgorithm raises on CPU. (Binary
    # fractions: every sum is exact whatever XLA's order, at the suite's optimization level)
    P = lax.DotAlgorithmPreset
    x, y = jnp.arange(6.0).reshape(2, 3) / 8, jnp.arange(6.0).reshape(3, 2) / 4 - 1
    dot = lambda p, a=x, b=y, **kw: jax.jit(lambda a, b: lax.dot(a, b, precision=p, **kw))(a, b)
    jaxpr = str(jax.make_jaxpr(lambda a, b: lax.dot_general(
        a, b, (([1], [0]), ([], [])), precision="BF16_BF16_F32"))(x, y))

    @jax.jit
    def algorithms(x, y):
        h, b = (x.astype(jnp.float16), y.astype(jnp.float16)), (x.astype(jnp.bfloat16),
                                                                 y.astype(jnp.bfloat16))
        return [lax.dot(x, y, precision=p) for p in (
            "DEFAULT", "F32_F32_F32", "BF16_BF16_F32", P.BF16_BF16_F32_X3,
            "BF16_BF16_F32_X6")] + [
            lax.dot(*h, precision="F16_F16_F16"), lax.dot(*b, precision=P.BF16_BF16_F32),
            lax.dot(*b, precision="BF16_BF16_F32", preferred_element_type=jnp.float32),
            lax.dot(x, y, precision="F32_F32_F32"),
            jax.grad(lambda a: lax.dot(a, y, precision="BF16_BF16_F32").sum())(x)]
    out["dot_algorithm"] = enc(algorithms(x, y))
    out["dot_algorithm_jaxpr"] = jaxpr
    out["dot_algorithm_presets"] = [
        [str(p), repr(p), str(p.accumulation_type and jnp.dtype(p.accumulation_type)),
         p.supported_lhs_types and [str(jnp.dtype(t)) for t in p.supported_lhs_types]]
        for p in P]
    out["dot_algorithm_errors"] = [
        outcome(lambda: dot("TF32_TF32_F32")), outcome(lambda: dot("ANY_F8_ANY_F8_F32")),
        outcome(lambda: dot(lax.DotAlgorithm(jnp.float32, jnp.float32, jnp.float32))),
        outcome(lambda: dot("F32_F32_F33"))]
    return out


def config_more_cases(jax):
    """softmax_custom_jvp, no_execution, make_user_context, jax2tf_associative_scan_reductions
    (softmax at equal logits: every derivative is exact)."""
    jnp = jax.numpy
    x = jnp.zeros(4)
    first = lambda v: jax.nn.softmax(v)[0]
    masked = lambda v: jax.nn.softmax(v, where=jnp.array([True, False, True, False]))[0]
    grads = jax.jit(lambda v: [jax.grad(first)(v), jax.grad(masked)(v)])   # (one program)
    out = {"softmax_default": enc(grads(x))}
    with jax.softmax_custom_jvp(True):     # (part of jit's key: traced again)
        out["softmax_custom_jvp"] = enc(grads(x) + jax.jit(lambda v: [
            jax.jvp(jax.nn.softmax, (v,), (jnp.arange(4.0),)), jax.nn.softmax(v)])(x))
        out["softmax_custom_jvp_primitives"] = sorted({e.primitive.name for e in jax.make_jaxpr(
            jax.nn.softmax)(x).eqns} & {"custom_jvp_call", "exp"})
    f = jax.jit(lambda v: v + 1)
    f(1.0)
    with jax.no_execution(True):
        out["no_execution"] = [outcome(lambda: f(2.0)), outcome(lambda: jax.make_jaxpr(f)(1.0)
                                                               is not None)]
    out["no_execution_after"] = enc(f(2.0))
    traces, ctx = [], jax.make_user_context(0)
    g = jax.jit(lambda v: traces.append(1) or v * 2)
    g(1.0)
    g(1.0)
    with ctx(1):
        g(1.0)
        g(1.0)
        out["user_context_value"] = ctx.value
    g(1.0)
    out["user_context_traces"] = len(traces)
    # threefry_partitionable: split, fold_in, bits of each width and uniform, both schemes
    out["threefry_partitionable"] = [jax.threefry_partitionable.value]
    for part in (False, True):
        with jax.threefry_partitionable(part):
            out["threefry_partitionable"].append(enc(jax.jit(lambda k: [
                jax.random.key_data(jax.random.split(k, 3)),
                jax.random.key_data(jax.random.fold_in(k, 7)), jax.random.bits(k, (5,)),
                jax.random.bits(k, (3,), jnp.uint8), jax.random.bits(k, (3, 2), jnp.uint16),
                jax.random.uniform(k, (3,)),
                jax.vmap(lambda k: jax.random.bits(k, (3,)))(jax.random.split(k, 2))])(
                    jax.random.key(42))))
    import threading
    seen = [jax.thread_guard.value]
    with jax.thread_guard(True):    # (one process: a jit from another thread still runs)
        worker = threading.Thread(target=lambda: seen.append(enc(f(5.0))))
        worker.start()
        worker.join()
    out["thread_guard"] = seen + [jax.thread_guard.value]
    # auto_pcast(False): no pvary put in for the inputs of an operation in a shard_map body
    mesh = jax.make_mesh((1,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    body = lambda pcast: jax.jit(jax.shard_map(
        lambda a, b: a + (jax.lax.pcast(b, "i", to="varying") if pcast else b), mesh=mesh,
        in_specs=(jax.P("i"), jax.P()), out_specs=jax.P("i")))
    z = jnp.arange(4.0)
    out["auto_pcast"] = [jax.auto_pcast.value, enc(body(False)(z, z))]
    with jax.auto_pcast(False):
        out["auto_pcast"] += [message(lambda: body(False)(z, 2 * z)), enc(body(True)(z, z)),
                              jax.auto_pcast.value]
    out["jax2tf_associative_scan_reductions"] = [jax.jax2tf_associative_scan_reductions.value]
    with jax.jax2tf_associative_scan_reductions(True):
        out["jax2tf_associative_scan_reductions"] += [
            jax.config.jax2tf_associative_scan_reductions, enc(jnp.cumsum(jnp.arange(4)))]
    return out


def lax_more_cases(jax):
    """dce_sink (its equations and custom call), scatter_apply."""
    jnp, lax = jax.numpy, jax.lax
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    idx = jnp.array([[1], [3], [1]])

    def sunk(x):
        lax.dce_sink(x * 2, prevent_mlir_dce=True)
        lax.dce_sink({"a": x, "b": [x + 1]})
        return x + 1

    apply = lambda x: lax.scatter_apply(x, idx, lambda v: v * 3 - 1, dn, update_shape=(3,))
    xs, src = jnp.array([[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 7.0, 6.0]]), jnp.array([[10.0, 20.0]])

    def sas(operand, source, init, select, scatter, window, strides, padding):
        scalars = (operand.dtype.type(0),) * 2      # the computations, on scalars, as jaxprs
        s, c = jax.make_jaxpr(select)(*scalars), jax.make_jaxpr(scatter)(*scalars)
        return lax.select_and_scatter_p.bind(
            operand, source, init, select_jaxpr=s.jaxpr, select_consts=tuple(s.consts),
            scatter_jaxpr=c.jaxpr, scatter_consts=tuple(c.consts), window_dimensions=window,
            window_strides=strides, padding=padding)

    tangent = lax.composite(lambda v: lax.sin(v) / lax.cos(v), name="my.tangent")
    softmax2 = lax.composite(lambda v, *, axis, scale=None, w=None: jax.nn.softmax(v, axis) * 2,
                             name="my.softmax", version=3)
    x = jnp.arange(4.0)
    return {
        "dce_sink": enc([sunk(x), jax.jit(sunk)(x), jax.grad(lambda v: sunk(v).sum())(x),
                         jax.vmap(sunk)(jnp.ones((2, 3)))]) + [lax.dce_sink(1.0)],
        "dce_sink_jaxpr": str(jax.make_jaxpr(sunk)(1.0)),
        "dce_sink_grad_jaxpr": str(jax.make_jaxpr(jax.grad(sunk))(1.0)),
        "scatter_apply": enc([apply(x), jax.jit(apply)(x), jax.vmap(apply)(jnp.stack([x, -x])),
                              lax.scatter_apply(jnp.arange(6).reshape(3, 2), jnp.array([[2]]),
                                                jnp.negative, lax.ScatterDimensionNumbers(
                                                    (1,), (0,), (0,)), update_shape=(1, 2)),
                              lax.scatter_apply(x, jnp.array([[7]]), jnp.exp, dn,
                                                update_shape=(1,), mode="clip")]),
        "scatter_apply_jaxpr": str(jax.make_jaxpr(apply)(x)),
        # accuracy= of the unary functions (values at points every implementation gets right)
        "accuracy": enc([getattr(lax, f)(jnp.float32(v), accuracy=a) for f, v in (
            ("exp", 0.0), ("exp2", 3.0), ("log", 1.0), ("log1p", 0.0), ("expm1", 0.0),
            ("tanh", 0.0), ("logistic", 0.0), ("sin", 0.0), ("cos", 0.0), ("tan", 0.0),
            ("sqrt", 4.0), ("rsqrt", 4.0), ("cbrt", 8.0))
            for a in (lax.AccuracyMode.HIGHEST, lax.Tolerance(atol=1e-5, ulps=2))] +
            [jax.jit(jax.vmap(lambda v: lax.exp2(v, accuracy=lax.Tolerance(rtol=1e-3))))(x),
             jax.grad(lambda v: lax.cos(v, accuracy=lax.AccuracyMode.DEFAULT))(0.0)]),
        "accuracy_jaxpr": [str(jax.make_jaxpr(lambda v: lax.exp(v) + lax.tanh(
            v, accuracy=lax.AccuracyMode.HIGHEST))(1.0)), str(jax.make_jaxpr(jax.grad(
                lambda v: lax.sin(v, accuracy=lax.AccuracyMode.HIGHEST)))(1.0))],
        "composite": enc([tangent(jnp.array([0.0, 0.5])), jax.jit(tangent)(jnp.float32(0.25)),
                          softmax2(jnp.array([1.0, 1.0]), axis=0),
                          jax.jit(lambda v: softmax2(v, axis=0, scale=None, w=np.arange(3)))(
                              jnp.zeros(4))]),
        "composite_jaxpr": str(jax.make_jaxpr(tangent)(jnp.zeros(2))),
        "composite_errors": [outcome(lambda: jax.grad(lambda v: tangent(v).sum())(jnp.ones(2))),
                             outcome(lambda: jax.vmap(tangent)(jnp.ones((2, 2))))],
        "select_and_scatter": enc([
            sas(xs, src, jnp.float32(0), lax.ge, lax.add, (2, 2), (2, 2), ((0, 0), (0, 0))),
            sas(xs, src, jnp.float32(1), lax.le, lax.mul, (2, 2), (2, 2), ((0, 0), (0, 0))),
            jax.jit(lambda a, s: sas(a, s, jnp.float32(0), lax.ge, lax.add, (1, 2), (1, 2),
                                     ((0, 0), (0, 0))))(xs, jnp.ones((2, 2))),
            sas(jnp.arange(6, dtype=jnp.int32), jnp.array([1, 2, 3], jnp.int32), jnp.int32(0),
                lax.ge, lax.add, (3,), (2,), ((0, 1),))]),
        # (JAX's primitive has no jvp or batching rule; neither has jxkernel's)
        "select_and_scatter_errors": [
            outcome(lambda: jax.grad(lambda a: sas(a, src, jnp.float32(0), lax.ge, lax.add,
                                                   (2, 2), (2, 2), ((0, 0), (0, 0))).sum())(xs)),
            outcome(lambda: jax.vmap(lambda a: sas(a, src[0], jnp.float32(0), lax.ge, lax.add,
                                                   (2,), (2,), ((0, 0),)))(xs))],
        "accuracy_errors": [outcome(lambda: lax.Tolerance()),
                            outcome(lambda: lax.Tolerance(atol=-1.0)),
                            [m.name for m in lax.AccuracyMode]],
    }


def smap_cases(jax):
    """jax.smap over a one-axis mesh: in_axes/out_axes, psum inside, grad, its errors."""
    jnp, AT = jax.numpy, jax.sharding.AxisType
    x = jnp.arange(6.0).reshape(2, 3)
    out = {}
    with jax.set_mesh(jax.make_mesh((1,), ("x",), (AT.Auto,))):
        f = jax.smap(lambda a, b: a * 2 + b, in_axes=(1, None), out_axes=1, axis_name="x")
        total = jax.smap(lambda a: jax.lax.psum(a, "x"), in_axes=0, out_axes=None,
                         axis_name="x")
        out["auto"] = enc([f(x, 1.0), jax.jit(f)(x, jnp.float32(2)), total(x),
                           jax.grad(lambda v: f(v, 1.0).sum())(x)])
        out["auto_errors"] = [
            message(lambda: jax.smap(lambda a: a, out_axes=0, axis_name="x")(x)),
            outcome(lambda: jax.smap(lambda a: a, in_axes=[0], out_axes=0, axis_name="x")),
            outcome(lambda: jax.smap(lambda a: a, in_axes=0, out_axes=0, axis_name=("x",)))]
    return out


def smap_explicit_cases(jax):
    """jax.smap over an Explicit mesh, in_axes inferred from an argument laid out on it (an
    array on a mesh: XLA's backends only)."""
    jnp, AT = jax.numpy, jax.sharding.AxisType
    x = jnp.arange(6.0).reshape(2, 3)
    with jax.set_mesh(jax.make_mesh((1,), ("x",), (AT.Explicit,))):   # in_axes inferred
        return {"explicit": enc(jax.smap(lambda a: a + 1, out_axes=0, axis_name="x")(
            jax.device_put(x, jax.P("x"))))}


def ffi_cases(jax):
    """jax.ffi.ffi_call on a target jaxlib registers (LAPACK's sgetrf, column-major): values,
    jit, vmap by its vmap_method, its errors; include_dir, register_ffi_type_id."""
    jnp, S = jax.numpy, jax.ShapeDtypeStruct
    jax.lax.linalg.lu(jnp.eye(2))          # (jxkernel registers jaxlib's LAPACK on first use)
    a = jnp.array([[1.0, 2.0, 0.5], [3.0, 4.0, 1.0], [0.0, 2.0, 8.0]])
    results = (S((3, 3), jnp.float32), S((3,), jnp.int32), S((), jnp.int32))
    layouts = dict(input_layouts=[(1, 0)], output_layouts=[(1, 0), (0,), ()])
    getrf = jax.ffi.ffi_call("lapack_sgetrf_ffi", results, **layouts)
    seq = jax.ffi.ffi_call("lapack_sgetrf_ffi", results, vmap_method="sequential", **layouts)
    bat = jax.ffi.ffi_call("lapack_sgetrf_ffi", results, vmap_method="broadcast_all", **layouts)
    return {
        "getrf": enc([getrf(a), jax.jit(getrf)(a), jax.vmap(seq)(jnp.stack([a, a.T])),
                      jax.jit(jax.vmap(bat))(jnp.stack([a, 2 * a]))]),
        "errors": [
            outcome(lambda: jax.grad(lambda v: getrf(v)[0].sum())(a)),
            outcome(lambda: jax.vmap(getrf)(jnp.stack([a, a]))),
            outcome(lambda: jax.ffi.ffi_call("x", S((), jnp.float32), vmap_method="no")),
            outcome(lambda: jax.ffi.ffi_call("x", S((3, 3), jnp.int32),
                                             input_output_aliases={0: 0})(a)),
            outcome(lambda: jax.ffi.register_ffi_type_id("t", None))],
        "include_dir": jax.ffi.include_dir().endswith("jaxlib/include"),
        "jaxpr": [e.primitive.name for e in jax.make_jaxpr(getrf)(a).eqns],
    }


def documented_modules_cases(jax):
    """jax.sharding's, jax.export's, jax.custom_derivatives' and the compilation cache's names
    that the wider public-names measurement found missing."""
    import collections
    import importlib
    jnp, sh, export = jax.numpy, jax.sharding, jax.export
    dev = jax.devices()[0]
    single = sh.make_single_device_sharding(dev)
    out = {"single": [single == sh.SingleDeviceSharding(dev), single.memory_kind,
                      sorted(map(str, single.device_set))],
           "abstract_device": repr(sh.AbstractDevice(device_kind="cpu", num_cores=None,
                                                     platform="cpu")),
           "mat": [repr(sh.ManualAxisType(varying=frozenset({"x"}))),
                   sorted(jax.typeof(jnp.ones(2)).manual_axis_type.varying)]}
    # DisabledSafetyCheck, and the platform check it turns off when calling
    platform, custom = export.DisabledSafetyCheck.platform(), \
        export.DisabledSafetyCheck.custom_call("tgt")
    out["checks"] = [str(platform), repr(custom), custom.is_custom_call(),
                     platform.is_custom_call(), platform == export.DisabledSafetyCheck.platform(),
                     platform == custom]
    spec = jax.ShapeDtypeStruct((2,), np.float32)
    cuda = export.export(jax.jit(jnp.sin), platforms=("cuda",))(spec)
    anywhere = export.export(jax.jit(jnp.sin), platforms=("cuda",),
                             disabled_checks=[platform])(spec)
    out["platform"] = [message(lambda: cuda.call(jnp.ones(2, jnp.float32))),
                       enc(anywhere.call(jnp.ones(2, jnp.float32))),
                       [str(c) for c in export.deserialize(
                           anywhere.serialize()).disabled_safety_checks]]
    # pytree nodes of namedtuples and registered classes in a serialized export
    Point = collections.namedtuple("Point", "a b")
    export.register_namedtuple_serialization(Point, serialized_name=f"cases.Point{id(Point)}")

    class Pair:
        def __init__(self, left, right, tag):
            self.left, self.right, self.tag = left, right, tag
    jax.tree_util.register_pytree_node(Pair, lambda p: ((p.left, p.right), p.tag),
                                       lambda tag, c: Pair(*c, tag))
    f = jax.jit(lambda p, q: (Point(p.b * 2, p.a + 1), Pair(q.right, q.left, q.tag)))
    args = (Point(spec, spec), Pair(spec, spec, "t"))
    out["unregistered"] = message(lambda: export.export(f)(*args).serialize())
    export.register_pytree_node_serialization(
        Pair, serialized_name=f"cases.Pair{id(Pair)}",
        serialize_auxdata=lambda tag: tag.encode(), deserialize_auxdata=lambda b: b.decode())
    again = export.deserialize(export.export(f)(*args).serialize())
    point, pair = again.call(Point(jnp.ones(2), jnp.zeros(2)),
                             Pair(jnp.ones(2), jnp.full(2, 3.0), "t"))
    out["nodes"] = [str(again.in_tree).replace(str(id(Pair)), ""), str(again.out_tree),
                    enc(list(point)), enc([pair.left, pair.right]), pair.tag]
    out["duplicate"] = [  # (the ids keep the names apart when the cases run twice)
        [m.replace(str(id(Point)), "") for m in
         message(lambda: export.register_namedtuple_serialization(Point, serialized_name="x"))],
        message(lambda: export.register_namedtuple_serialization(Pair, serialized_name="y"))]
    # custom_vjp_primal_tree_values: a symbolic_zeros fwd rule's arguments as values
    g = jax.custom_vjp(lambda x, y: x * y)
    cd = jax.custom_derivatives
    g.defvjp(lambda x, y: (lambda v: (v["x"] * v["y"], (v["x"], v["y"])))(
                 cd.custom_vjp_primal_tree_values({"x": x, "y": y})),
             lambda res, ct: (res[1] * ct, res[0] * ct), symbolic_zeros=True)
    out["primal_values"] = [enc(jax.grad(g, argnums=(0, 1))(2.0, 3.0)),
                            message(lambda: cd.custom_vjp_primal_tree_values([1.0]))]
    # the persistent compilation cache's folder
    cc = importlib.import_module(jax.__name__ + ".experimental.compilation_cache."
                                 "compilation_cache")
    before = jax.config.jax_compilation_cache_dir
    try:
        out["cache"] = [cc.set_cache_dir("/tmp/cases-cache"), jax.config.jax_compilation_cache_dir,
                        cc.reset_cache()]
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
    return out


def linear_call_cases(jax):
    """jax.custom_derivatives.linear_call: a linear function with its own transpose (JAX's
    docstring examples, under jit, grad, jvp, make_jaxpr; its errors)."""
    import functools
    jnp, linear_call = jax.numpy, jax.custom_derivatives.linear_call

    def div_add(x, denom):
        return x + linear_call(lambda r, x: x / r, lambda r, t: t / r, denom, x)

    def custom_id(x):
        return linear_call(lambda _, x: x, lambda _, t: 7.0, (), x)

    def transpose(f, example):
        return lambda y: jax.linear_transpose(f, example)(y)[0]
    jaxpr = str(jax.make_jaxpr(lambda x: div_add(x, 4.0))(1.0))
    return {
        "eager": [float(div_add(9.0, 3.0)), float(custom_id(1.0))],
        "transposed": [float(transpose(functools.partial(div_add, denom=3.0), 1.0)(18.0)),
                       float(transpose(custom_id, 1.0)(1.0)),
                       float(transpose(transpose(custom_id, 1.0), 1.0)(1.0)),
                       float(transpose(transpose(transpose(custom_id, 1.0), 1.0), 1.0)(1.0))],
        "jit_grad": [enc(jax.jit(custom_id)(jnp.float32(2.0))),
                     enc(jax.grad(custom_id)(jnp.float32(3.0))),
                     enc(jax.jit(jax.grad(lambda x: jax.jit(div_add)(x, 4.0)))(jnp.float32(2.0))),
                     [float(v) for v in jax.jvp(custom_id, (1.0,), (2.0,))]],
        "jaxpr": jaxpr[:jaxpr.index("transpose_thunk")],
        "vmap": message(lambda: jax.vmap(custom_id)(jnp.ones(3))),
        "bad_transpose": message(lambda: jax.linear_transpose(
            lambda x: linear_call(lambda r, x: x, lambda r, t: (t, t), (), x), 1.0)(1.0)),
    }


def interpreters_ad_cases(jax):
    """jax.interpreters.ad's helpers for primitives a library defines: defbilinear,
    add_jaxvals, zeros_like_aval, get_primitive_transpose."""
    import importlib
    ad = importlib.import_module(jax.__name__ + ".interpreters.ad")
    Primitive = importlib.import_module(jax.__name__ + ".extend.core").Primitive
    jnp = jax.numpy
    mul = Primitive("cases_bilinear_mul")
    mul.def_impl(lambda x, y: x * y)
    mul.def_abstract_eval(lambda x, y: x)
    ad.defbilinear(mul, lambda ct, x, y: ct * y, lambda ct, x, y: x * ct)
    return {
        "add": [enc(ad.add_jaxvals(1.0, 2.0)), ad.add_jaxvals_p.name,
                enc(ad.add_jaxvals(jnp.ones(2), jnp.ones(2)))],
        "zeros": enc(ad.zeros_like_aval(jax.core.ShapedArray((2,), np.float32))),
        "transpose": [ad.get_primitive_transpose(jax.lax.neg_p) is not None,
                      message(lambda: ad.get_primitive_transpose(mul))],
        "bilinear": [enc(jax.grad(lambda a, b: mul.bind(a, b).sum(), argnums=(0, 1))(
                         jnp.arange(3.0), jnp.full(3, 2.0))),
                     [float(v) for v in jax.jvp(lambda a: mul.bind(a, 3.0), (2.0,), (1.0,))]],
    }


def api_util_cases(jax):
    """jax.api_util's helpers for libraries that build their own transformations."""
    import importlib
    au = importlib.import_module(jax.__name__ + ".api_util")
    lu = importlib.import_module(jax.__name__ + ".extend.linear_util")
    tu = jax.tree_util

    def sub(a, b, c):
        return (a - b) * c

    def wrapped():
        return lu.wrap_init(sub, debug_info=au.debug_info("t", sub, (1, 2, 3), {}))
    g, dyn = au.argnums_partial(wrapped(), (0, -1), (10, 3, 2))
    return {
        "rebase": [au.rebase_donate_argnums((3, 4), (0, 1)), au.rebase_donate_argnums((2, 0), ()),
                   au.rebase_donate_argnums((5, 1), (0, 3)),
                   message(lambda: au.rebase_donate_argnums((1,), (1,)))],
        "donation": [au.donation_vector((1,), ("b",), tu.tree_structure(
                         ((1, (2, 3)), {"b": [1, 2], "a": 3}))),
                     au.donation_vector((0,), (), tu.tree_structure((1, [2, 3])), kws=False)],
        "axes": [au.flatten_axes("in_axes", tu.tree_structure(([1, 2], 3)), (0, None)),
                 au.flatten_axes("in_axes", tu.tree_structure(({"a": 1, "b": (2, 3)},)),
                                 ({"a": None, "b": 1},)),
                 message(lambda: au.flatten_axes("vmap in_axes", tu.tree_structure((1, 2)),
                                                 (0, 0, 0), tupled_args=True)),
                 message(lambda: au.flatten_axes("vmap in_axes", tu.tree_structure(([1, 2],)),
                                                 [0, 1], tupled_args=True))],
        "safe_map": [au.safe_map(lambda a, b: a + b, [1, 2], [3, 4]),
                     message(lambda: au.safe_map(lambda a, b: a, [1], [1, 2]))],
        "argnums_partial": [list(dyn), g.call_wrapped(*dyn),
                            message(lambda: au.argnums_partial(wrapped(), 0, (1, [2], 3))),
                            message(lambda: au.argnums_partial(wrapped(), 5, (1, 2, 3)))],
    }


def extend_core_cases(jax):
    """jax.extend.core's token types and its symbolic-shape error class."""
    import importlib
    ext = importlib.import_module(jax.__name__ + ".extend.core")
    tok = jax.lax.create_token()
    a, = jax.export.symbolic_shape("a")

    def inconclusive():
        try:
            bool(a >= 2)
        except ext.InconclusiveDimensionOperation as e:
            return str(e).splitlines()[0]
        return "no error"
    return {"token": [type(tok) is ext.Token, isinstance(jax.typeof(tok), ext.AbstractToken),
                      repr(jax.typeof(tok))],
            "inconclusive": inconclusive()}


def run(jax) -> dict:
    return {"api": api_cases(jax), "api_mesh": api_mesh_cases(jax), "lax": lax_cases(jax),
            "custom_batching": custom_batching_cases(jax), "config": config_cases(jax),
            "state": state_cases(jax), "dot": dot_cases(jax),
            "config_more": config_more_cases(jax), "lax_more": lax_more_cases(jax),
            "smap": smap_cases(jax), "smap_explicit": smap_explicit_cases(jax),
            "ffi": ffi_cases(jax), "documented_modules": documented_modules_cases(jax),
            "linear_call": linear_call_cases(jax), "interpreters_ad": interpreters_ad_cases(jax),
            "api_util": api_util_cases(jax), "extend_core": extend_core_cases(jax),
            # (last: its scalar listener stays registered and hears later compiles)
            "ops_monitoring": ops_monitoring_cases(jax)}
