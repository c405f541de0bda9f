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
- lax.scan's result in the body's own pair type; a body of three outputs in JAX's words.
- `Array._value` an attribute (a NumPy array; a token's buffer raises JAX's RuntimeError).
- a library's own extended dtype and array class, registered as lax_test.py's
  CustomElementTypesTest registers them: jit, vmap, scan, slicing, ==, select over them.
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


def _foreign_arrays(jax):
    """lax_test.py's CustomElementTypesTest: a library's own extended dtype (FooTy, data
    u32[2] per element), its array class (FooArray) registered with JAX's runtime-type
    plumbing (core.pytype_aval_mappings, pxla.shard_arg_handlers, mlir._constant_handlers)
    and primitives lowered by mlir.lower_fun; removed after as the test's tearDown removes them
    (its canonicalize handler stays: no API removes one)."""
    import importlib
    src = jax.__name__ + "._src."
    core, dtypes, array = (importlib.import_module(src + m) for m in ("core", "dtypes", "array"))
    mlir, pxla = (importlib.import_module(src + "interpreters." + m) for m in ("mlir", "pxla"))
    batching = importlib.import_module(jax.__name__ + ".interpreters.batching")
    jnp, lax = jax.numpy, jax.lax

    class FooArray:
        def __init__(self, shape, data):
            assert data.shape == (*shape, 2)
            self.shape, self.data = shape, data

    class FooTyRules:
        @staticmethod
        def physical_element_aval(dtype):
            return core.ShapedArray((2,), jnp.dtype("uint32"))

        @staticmethod
        def global_sharded_result_handler(aval, out_sharding, committed):
            handler = pxla.global_result_handlers[core.ShapedArray](
                core.physical_aval(aval), out_sharding, committed)
            return handler.wrap(lambda arr: FooArray(aval.shape, arr))

    class FooTy(dtypes.ExtendedDType):
        type = dtypes.extended
        name = "foo"
        _rules = FooTyRules

        def __hash__(self):
            return hash(FooTy)

        def __eq__(self, other):
            return type(other) is FooTy

        def __repr__(self):
            return self.name
        __str__ = __repr__

    make_p, bake_p, take_p, jake_p = (core.Primitive(n) for n in ("make", "bake", "take", "jake"))
    make_p.def_abstract_eval(lambda *, shape: core.ShapedArray(shape, FooTy()))
    bake_p.def_abstract_eval(lambda x: core.ShapedArray(tuple(reversed(x.shape)), FooTy()))
    take_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, jnp.dtype("float32")))
    jake_p.def_abstract_eval(lambda x: x)
    make = lambda shape: make_p.bind(shape=tuple(shape))
    bake, take, jake = bake_p.bind, take_p.bind, jake_p.bind

    def shard_foo(xs, shardings, layouts, copy_semantics):
        out = []
        for x, sharding in zip(xs, shardings):
            device, = sharding._addressable_device_assignment
            out.append(pxla.batched_device_put(core.typeof(x.data), sharding, [x.data],
                                               [device]))
        return out

    lowerings = {make_p: lambda *, shape: jnp.zeros((*shape, 2), "uint32"),
                 bake_p: lambda k: k.T,
                 take_p: lambda k: jnp.broadcast_to(jnp.float32(k.size), k.shape),
                 jake_p: lambda k: jnp.ones((*k.shape, 2), "uint32")}

    def bake_vmap(args, dims):
        return bake(args[0]), list(reversed(range(args[0].ndim)))[dims[0]]

    def describe(v):
        if isinstance(v, FooArray):
            return {"class": "FooArray", "shape": list(v.shape),
                    "data": np.asarray(v.data).tolist()}
        return {"class": "Array", "dtype": str(v.dtype), "value": np.asarray(v).tolist()}

    dtypes.register_canonicalize_value_handler(FooArray, None)
    core.pytype_aval_mappings[FooArray] = lambda x: core.ShapedArray(x.shape, FooTy())
    pxla.shard_arg_handlers[FooArray] = shard_foo
    mlir._constant_handlers[FooArray] = lambda x, aval: array._array_mlir_constant_handler(
        x.data, aval)
    for prim, fun in lowerings.items():
        mlir.register_lowering(prim, mlir.lower_fun(fun, False))
    batching.defvectorized(take_p)
    batching.primitive_batchers[bake_p] = bake_vmap
    out = {}
    try:
        k = FooArray((), jnp.arange(2, dtype="uint32"))
        out["aval"] = core.ShapedArray((3, 4), FooTy()).str_short()
        out["jaxpr"] = str(jax.make_jaxpr(lambda: take(bake(make((3, 4)))))())
        out["jit_closure"] = describe(jax.jit(lambda: k)())
        out["jit_identity"] = describe(jax.jit(lambda k: k)(k))
        out["jit_primitives"] = describe(jax.jit(lambda: take(bake(make((3,)))))())
        ks = jax.jit(lambda: make((3, 4)))()
        scan = lambda ks: lax.scan(lambda _, k: (None, bake(k)), None, ks)
        out["scan_jaxpr"] = str(jax.make_jaxpr(scan)(ks))
        out["scan"] = describe(jax.jit(scan)(ks)[1])
        out["vmap"] = describe(jax.vmap(jax.jit(lambda k: take(bake(k))))(
            jax.jit(lambda: make((3, 4, 5)))()))
        out["slice"] = describe(jax.jit(lambda x: lax.slice_in_dim(x, 1, 3))(ks))
        out["dynamic_slice"] = describe(jax.jit(lambda x, i: lax.dynamic_slice_in_dim(
            x, i, 2))(ks, 1))
        out["transpose"] = describe(jax.jit(lambda x: x.T)(ks))
        out["gather"] = describe(jax.jit(lambda x: x[1, 2:4])(ks))
        k1, k2 = jax.jit(lambda: make(()))(), jax.jit(lambda: jake(make(())))()
        eq = jax.jit(lambda a, b: a == b)
        ne = jax.jit(lambda a, b: a != b)
        row = jax.jit(lambda k: jake(make((5,))).at[2:4].set(k))(k1)
        out["scatter"] = describe(row)
        out["equal"] = [bool(eq(k1, k1)), bool(eq(k1, k2)), bool(ne(k1, k2)), bool(ne(k1, k1)),
                        np.asarray(eq(k1, row)).tolist(), np.asarray(ne(k1, row)).tolist()]
        out["select"] = describe(jax.jit(lax.select)(jnp.array([True, False, False]),
                                                     *[jax.jit(lambda: make((3,)))()] * 2))
    finally:
        del core.pytype_aval_mappings[FooArray], pxla.shard_arg_handlers[FooArray]
        del mlir._constant_handlers[FooArray]
        for prim in lowerings:
            del mlir._lowerings[prim]
        del batching.primitive_batchers[take_p], batching.primitive_batchers[bake_p]
    return out


def _array_value(jax):
    """`Array._value`, the NumPy value code written for JAX reads as an attribute (JAX's
    api_test.py test_print_token_buffer_error reads a token's buffer so: an error)."""
    x = jax.numpy.arange(3)
    try:
        jax.lax.create_token()._buf._value
        token = None
    except RuntimeError as e:
        token = str(e).splitlines()[0]
    return {"type": type(x._value).__name__, "value": x._value.tolist(),
            "writeable": bool(x._value.flags.writeable), "token_buffer": token}


def _scan_outputs(jax):
    """lax.scan's result as the body's pair is (a list stays a list; a tuple under
    disable_jit, as JAX's Python loop returns), and a body of three outputs refused with each
    output's type in JAX's words."""
    lax, xs = jax.lax, jax.numpy.arange(3.0)

    def listed(c, v):
        return [c + v, c]
    try:
        lax.scan(lambda c, v: (c + v, c, v), 0.0, xs)
        triple = None
    except TypeError as e:
        triple = str(e)
    with jax.disable_jit():
        unjitted = type(lax.scan(listed, 0.0, xs)).__name__
    return {"list": type(lax.scan(listed, 0.0, xs)).__name__,
            "list_in_jit": type(jax.jit(lambda x: lax.scan(listed, 0.0, x))(xs)).__name__,
            "tuple": type(lax.scan(lambda c, v: (c + v, c), 0.0, xs)).__name__,
            "list_disable_jit": unjitted, "triple": triple}


def _all_gather_axes(jax):
    """all_gather's axis checked as JAX's (canonicalize_axis against the gathered rank: x's
    when tiled, one more when stacked), under vmap and pmap: a tiled scalar divided by zero."""
    lax, x = jax.lax, jax.numpy.arange(1.0)
    out = {}
    for kw in ({"tiled": True}, {"tiled": True, "axis": 1}, {"axis": 2}, {"axis": -2}):
        for name, transform in (("vmap", jax.vmap), ("pmap", jax.pmap)):
            try:
                got = transform(lambda v: lax.all_gather(v, "i", **kw), axis_name="i")(x)
                out[f"{kw} {name}"] = list(got.shape)
            except Exception as e:     # noqa: BLE001  (the class and words are the case)
                out[f"{kw} {name}"] = [type(e).__name__, str(e)]
    return out


def run(jax):
    return {"device_count": len(jax.devices()),
            "user_context_threads": _user_context_threads(jax),
            "set_mesh_threads": _set_mesh_threads(jax),
            "psum_constants": _psum_constants(jax),
            "tokens": _tokens(jax),
            "keys_on_explicit_mesh": _keys_on_explicit_mesh(jax),
            "custom_calls_under_named_vmap": _custom_calls_under_named_vmap(jax),
            "foreign_arrays": _foreign_arrays(jax),
            "array_value": _array_value(jax),
            "scan_outputs": _scan_outputs(jax),
            "all_gather_axes": _all_gather_axes(jax)}
