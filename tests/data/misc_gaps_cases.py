"""Small differences from JAX found at stop 66, run alike by real JAX (reference/
make_misc_gaps_reference.py records them in misc_gaps_reference.json, on 8 simulated CPU
devices) and by jxkernel (tests/jax_compat/test_misc_gaps.py, in a subprocess with as many):
`run(jax)` returns plain JSON data.

    run(jax)["user_context_threads"]  ->  {"a": 6.0, "b": 1.0, "traced_with": [5, 0], ...}

- jax.make_user_context's value and set_mesh's mesh are per thread (JAX's config is
  thread-local): a jit called in another thread neither sees nor reuses them.
- psum of a value that is no tracer (a Python scalar) under a named vmap is that value times
  the axis size, of its own kind (a Python int stays one), with nothing in the jaxpr.
- lax.create_token() values: their type, what takes them, what make_jaxpr shows.
- vmap of fold_in (and the other key primitives) over typed keys split over an Explicit mesh
  axis: results typed as split (`key<fry>[8@x]`), the messages held rather than broadcast.
- custom_jvp/custom_vjp calls of unbatched inputs under a named vmap: batched as JAX's (a
  collective in the body sums over the axis; outputs stay unbatched).
"""
import threading

import numpy as np


def _kind(jax, x):
    """A value's type as JAX names it (jxkernel's names with 'jax' for its own package; an
    Array's class is each one's own)."""
    if isinstance(x, jax.Array):
        return "Array"
    kind = type(x)
    return f"{kind.__module__}.{kind.__qualname__}".replace(jax.__name__, "jax")


def _in_two_threads(first, second):
    """Run `first` in one thread until it has done its part, then `second` in another while
    the first is still inside its `with` block."""
    entered, done = threading.Event(), threading.Event()

    def a():
        first(entered, done)

    def b():
        entered.wait()
        try:
            second()
        finally:
            done.set()
    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _user_context_threads(jax):
    ctx = jax.make_user_context(0)
    traced_with = []

    @jax.jit
    def f(x):
        traced_with.append(ctx.value)
        return x + ctx.value
    out = {}

    def first(entered, done):
        with ctx(5):
            out["a_value"], out["a"] = ctx.value, float(f(1.0))
            entered.set()
            done.wait()

    def second():
        out["b_value"], out["b"] = ctx.value, float(f(1.0))
    _in_two_threads(first, second)
    out["traced_with"] = traced_with
    # set_global: every thread's value outside a `with` of it
    ctx.set_global(3)
    seen = {}
    thread = threading.Thread(target=lambda: seen.update(value=ctx.value, f=float(f(1.0))))
    thread.start()
    thread.join()
    out["global_in_other_thread"], out["global_here"] = seen, ctx.value
    out["get_global"] = ctx.get_global()
    ctx.set_global(0)
    out["traced_with_after"] = traced_with
    return out


def _set_mesh_threads(jax):
    jnp = jax.numpy
    mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    traces = []

    @jax.jit
    def g(x):
        traces.append(str(jax.typeof(x)))
        return x * 2
    out = {}

    def describe(y):
        return {"sharding": repr(y.sharding).replace(jax.__name__, "jax"),
                "value": np.asarray(y).tolist(),
                "abstract_mesh": str(jax.sharding.get_abstract_mesh())}

    def first(entered, done):
        with jax.sharding.set_mesh(mesh):
            out["under_mesh"] = describe(g(jnp.arange(8.0)))
            entered.set()
            done.wait()

    def second():
        out["other_thread"] = describe(g(jnp.arange(8.0)))
    _in_two_threads(first, second)
    # set_mesh as a setter, in a thread of its own: the thread's mesh only
    seen = {}

    def setter():
        jax.sharding.set_mesh(mesh)
        seen["setter_thread"] = describe(g(jnp.arange(8.0)))
    thread = threading.Thread(target=setter)
    thread.start()
    thread.join()
    out.update(seen)
    out["main_thread_after"] = describe(g(jnp.arange(8.0)))
    out["traces"] = traces
    return out


def _psum_constants(jax):
    jnp, lax = jax.numpy, jax.lax
    seen = {}

    def describe(v):
        if isinstance(v, jax.core.Tracer):      # (under jit: a staged value)
            return {"kind": "Tracer", "type": str(jax.typeof(v))}
        value = np.asarray(v)
        if value.dtype.kind == "c":
            value = np.stack([value.real, value.imag])
        return {"kind": _kind(jax, v), "value": value.tolist(),
                "dtype": str(np.asarray(v).dtype) if not isinstance(v, (int, float, complex))
                else None}

    def body(where):
        def f(x):
            leaves = {"int": 1, "float": 2.5, "complex": 1 + 2j, "bool": True,
                      "np_float32": np.float32(2.0), "np_int16_array": np.array([1, 2], np.int16),
                      "tuple": (1, 2.0)}
            for name, leaf in leaves.items():
                got = lax.psum(leaf, "i")
                seen[f"{where}/psum_{name}"] = [describe(g) for g in got] \
                    if isinstance(got, tuple) else describe(got)
            seen[f"{where}/pmean_int"] = describe(lax.pmean(1, "i"))
            return x * lax.psum(1, "i")
        return f
    out = jax.vmap(body("vmap"), axis_name="i")(jnp.ones(3))
    seen["vmap/result"] = describe(out)
    jax.jit(jax.vmap(body("jit_vmap"), axis_name="i"))(jnp.ones(3))
    seen["outside"] = describe(jax.vmap(lambda x: lax.psum(1, "i"), axis_name="i")(jnp.ones(3)))
    seen["jaxpr"] = str(jax.make_jaxpr(jax.vmap(lambda x: x * lax.psum(1, "i"),
                                                axis_name="i"))(jnp.ones(3)))
    for where, call in (("eager", lambda: lax.psum(1, "i")),
                        ("jit", lambda: jax.jit(lambda: lax.psum(1, "i"))())):
        try:
            call()
            seen[f"unbound_{where}"] = "no error"
        except Exception as e:         # JAX's NameError
            seen[f"unbound_{where}"] = f"{type(e).__name__}: {e}"
    return seen


def _tokens(jax):
    jnp, lax = jax.numpy, jax.lax
    token = lax.create_token()
    out = {"kind": _kind(jax, token), "is_array": isinstance(token, jax.Array),
           "repr_starts": repr(token).split(" object at ")[0].replace(jax.__name__, "jax"),
           "block_until_ready": repr(token.block_until_ready()),
           "typeof": str(jax.typeof(token)),
           "jit_identity": _kind(jax, jax.jit(lambda t: t)(token)),
           "jit_create": _kind(jax, jax.jit(lambda: lax.create_token())()),
           "after_all": _kind(jax, lax.after_all(token, token)),
           "after_all_none": _kind(jax, lax.after_all()),
           "jit_after_all": _kind(jax, jax.jit(lambda t: lax.after_all(t, t))(token)),
           "create_token_with_argument": _kind(jax, lax.create_token(jnp.ones(3))),
           "jaxpr_create": str(jax.make_jaxpr(lambda: lax.create_token())()),
           "jaxpr_after_all": str(jax.make_jaxpr(lambda t: lax.after_all(t))(token)),
           "vmap_passes_through": np.asarray(
               jax.vmap(lambda x, t: x, in_axes=(0, None))(jnp.ones(2), token)).tolist()}
    try:
        jnp.asarray(token)
        out["asarray"] = "no error"
    except TypeError as e:
        out["asarray"] = str(e).split("'")[0] + "'...'" + str(e).split("'")[-1]
    return out


def _keys_on_explicit_mesh(jax):
    """vmap of the key primitives over typed keys split over an Explicit mesh axis: each
    result's type (split as the keys) and bits."""
    jnp, random, P = jax.numpy, jax.random, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    out = {}
    with jax.sharding.set_mesh(mesh):
        keys = jax.device_put(random.split(random.key(0), 8), P("x"))
        raw = jax.device_put(random.key_data(keys), P("x"))
        data = jax.device_put(jnp.arange(8), P("x"))
        programs = {
            "fold_in_both_split": lambda: jax.vmap(random.fold_in)(keys, data),
            "fold_in_data_held": lambda: jax.vmap(random.fold_in, in_axes=(0, None))(keys, 3),
            "fold_in_closure": lambda: jax.vmap(lambda k: random.fold_in(k, 3))(keys),
            "fold_in_row_held": lambda: jax.vmap(random.fold_in, in_axes=(0, None))(
                keys, jnp.arange(8)),
            "jit_fold_in": lambda: jax.jit(jax.vmap(random.fold_in))(keys, data),
            "fold_in_raw_keys": lambda: jax.vmap(random.fold_in)(raw, data),
            "normal": lambda: jax.vmap(lambda k: random.normal(k, (2,)))(keys),
            "bits": lambda: jax.vmap(lambda k: random.bits(k, (2,)))(keys),
            "split": lambda: jax.vmap(random.split)(keys),
            "wrap": lambda: jax.vmap(random.wrap_key_data)(raw),
            "key_data": lambda: jax.vmap(random.key_data)(keys),
        }
        for name, program in programs.items():
            try:
                got = program()
            except Exception as e:
                out[name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
                continue
            typed = jax.dtypes.issubdtype(got.dtype, jax.dtypes.prng_key)
            value = np.asarray(random.key_data(got) if typed else got)
            out[name] = {"type": str(jax.typeof(got)),
                         "value": value.view(np.uint32).tolist() if value.dtype == np.float32
                         else value.tolist()}
    return out


def _custom_calls_under_named_vmap(jax):
    """custom_jvp/custom_vjp functions of unbatched inputs under a named vmap: JAX batches
    every such call (its BatchTrace sees them all), so a collective in the body sums over
    the axis, while the outputs stay unbatched where the body leaves them so."""
    jnp, lax = jax.numpy, jax.lax

    @jax.custom_jvp
    def f(x):
        return x * lax.psum(x, "i")
    f.defjvp(lambda p, t: (f(p[0]), 2 * lax.psum(p[0], "i") * t[0]))

    @jax.custom_vjp
    def g(x):
        return jnp.cos(x)
    g.defvjp(lambda x: (g(x), x), lambda r, c: (-jnp.sin(r) * c,))
    y, xs = np.float32(0.5), np.ones(3, np.float32)
    out = {}
    for name, fn in (("custom_jvp", f), ("custom_vjp", g)):
        h = lambda x, y, fn=fn: fn(y) + x
        vm = dict(in_axes=(0, None), axis_name="i")
        out[f"{name}/jaxpr"] = str(jax.make_jaxpr(jax.vmap(h, **vm))(xs, y))
        out[f"{name}/value"] = np.asarray(jax.vmap(h, **vm)(xs, y)).tolist()
        out[f"{name}/grad"] = np.asarray(jax.vmap(jax.grad(h, argnums=1), **vm)(xs, y)).tolist()
        out[f"{name}/unbatched_out"] = np.asarray(jax.vmap(
            lambda x, y, fn=fn: fn(y), out_axes=None, **vm)(xs, y)).tolist()
    return out


def run(jax):
    return {"device_count": len(jax.devices()),
            "user_context_threads": _user_context_threads(jax),
            "set_mesh_threads": _set_mesh_threads(jax),
            "psum_constants": _psum_constants(jax),
            "tokens": _tokens(jax),
            "keys_on_explicit_mesh": _keys_on_explicit_mesh(jax),
            "custom_calls_under_named_vmap": _custom_calls_under_named_vmap(jax)}
