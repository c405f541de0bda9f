"""Small gaps JAX 0.10.2's own test files showed (conformance/jax_tests), each run the same way
by real JAX (reference/make_jax_tests_gaps_reference.py writes jax_tests_gaps_reference.json)
and by jxkernel (tests/jax_compat/test_jax_tests_gaps.py). Values are JSON data compared
exactly (dtypes, shapes, structure, small exact floats); errors are [class name, first line]."""
import numpy as np
from recorded_errors import error_of  # tests/data


def _error(fn) -> list | None:
    """[exception class, first line of its message] of `fn()`, or None if it returns."""
    return error_of(fn, "\n")


def _leaf(x) -> list | str:
    """A residual or NotNeeded as data: [type is a jax.Array, dtype, shape, values]."""
    if type(x).__name__ == "NotNeeded":
        return "NotNeeded"
    return [type(x).__name__ == "ArrayImpl", str(x.dtype), list(x.shape),
            np.asarray(x).tolist()]


def _tuptree(tree):
    return [_tuptree(t) for t in tree] if isinstance(tree, tuple) else _leaf(tree)


def vjp_residuals(jax):
    """vjp's pullback: `args_res` (per argument, as tuples, the primal leaves it keeps as
    residuals, NotNeeded() for the others) and `opaque_residuals` (those it computed);
    lax_control_flow_test's test_scan_vjp_forwards_extensive_residuals."""
    jnp, lax = jax.numpy, jax.lax
    out = {}
    b = jnp.ones(2)
    _, f = jax.vjp(lambda a, b: a * b, 1.0, b)
    out["mul"] = [[_tuptree(a) for a in f.args_res], [_leaf(r) for r in f.opaque_residuals],
                  f.args_res[1] is b]
    _, f = jax.vjp(lambda a, t: (a * 2, t), 1.0, {"k": (jnp.ones(2), 3.0)})
    out["tree"] = [[_tuptree(a) for a in f.args_res], [_leaf(r) for r in f.opaque_residuals]]

    def cumprod(x):
        return lax.scan(lambda s, x: (x * s, s), jnp.ones((2, 3), jnp.float32), x)
    x = jnp.arange(24.0, dtype=jnp.float32).reshape(4, 2, 3) / 8
    _, f = jax.vjp(cumprod, x)
    out["scan_forwards_xs"] = [len(f.args_res), f.args_res[0] is x]
    out["pullback_in_jit"] = _leaf(jax.jit(lambda f, c: f(c)[1])(
        jax.vjp(lambda a, b: a * b, 1.0, b)[1], jnp.ones(2)))
    return out


def implementation_switches(jax):
    """JAX's switches between implementations of its own, and their defaults."""
    names = ("jax_use_simplified_jaxpr_constants", "jax_use_direct_linearize", "jax_remat3")
    return {n: getattr(jax.config, n) for n in names}


def key_issubdtype(jax):
    """jnp.issubdtype with a typed key's dtype on either side (random_test's test_issubdtype):
    a key dtype is under prng_key, extended and np.generic, and holds only itself."""
    jnp = jax.numpy
    key, other = jax.random.key(42), jax.random.key(0, impl="rbg")
    kinds = {"itself": key.dtype, "prng_key": jax.dtypes.prng_key,
             "extended": jax.dtypes.extended, "generic": np.generic, "integer": np.integer,
             "number": np.number, "rbg_key": other.dtype}
    out = {name: bool(jnp.issubdtype(key.dtype, kind)) for name, kind in kinds.items()}
    out["float32_under_key"] = bool(jnp.issubdtype(np.float32, key.dtype))
    out["uint32_under_prng_key"] = bool(jnp.issubdtype(np.uint32, jax.dtypes.prng_key))
    return out


def cond_closure_released(jax):
    """A jitted cond whose branches close over an array: once the function and its jit are
    dropped, the array goes too (no cache keeps it; lax_control_flow_test's
    test_cond_memory_leak). How many more arrays are alive after each of three rounds."""
    import gc

    def leak():
        data = jax.device_put(np.zeros(1024, dtype=np.float32) + 1)

        def g():
            return jax.lax.cond(True, jax.jit(lambda: data[0]), lambda: data[1])
        jg = jax.jit(g)
        jg().block_until_ready()
        jg.clear_cache()
        del g, jg, data
        gc.collect()

    gc.collect()
    base = len(jax.live_arrays())
    grown = []
    for _ in range(3):
        leak()
        grown.append(max(0, len(jax.live_arrays()) - base))
    return grown


def pmap_in_eager_loop(jax):
    """A pmap over the devices there are inside an eager fori_loop's body runs (the loop's
    program holds it, as in a jit); one over more entries than devices raises JAX's error
    (lax_control_flow_test's test_while_loop_of_pmap and its _error_message)."""
    jnp, lax = jax.numpy, jax.lax
    n = jax.device_count()

    def body(i, x):
        return jax.pmap(lambda z: lax.psum(z * 2, "i"), axis_name="i")(x) + x
    out = lax.fori_loop(0, 3, body, jnp.arange(n, dtype=jnp.float32) + 1)
    too_big = _error(lambda: lax.fori_loop(0, 3, body, jnp.ones(2 * n)))
    return {"values": np.asarray(out).tolist(), "dtype": str(out.dtype),
            "too_big": too_big}


def checkify_custom_rules(jax):
    """checkify through custom_jvp and custom_vjp (checkify_test's test_custom_jvp and
    test_custom_vjp): the function is checked; under jvp or vjp of checkify the rule runs and
    adds no check (no metadata); checkify of jvp or grad checks the rule."""
    import importlib
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
    jnp = jax.numpy
    floats = checkify.float_checks

    @jax.custom_jvp
    def sin_j(x):
        return jnp.sin(x)

    @sin_j.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin_j(x), jnp.cos(x) * t

    @jax.custom_vjp
    def sin_v(x):
        return jnp.sin(x)
    sin_v.defvjp(lambda x: (jnp.sin(x), 2. * x), lambda r, g: (jnp.cos(r / 2.) * g,))

    def first_line(err):
        text = err.get()
        return None if text is None else text.splitlines()[0].split(" at ")[0]

    out = {}
    for name, fun in (("custom_jvp", sin_j), ("custom_vjp", sin_v)):
        f = checkify.checkify(fun, errors=floats)
        (err, y), _ = jax.vjp(f, 3.)
        out[name] = {"plain_inf": first_line(f(jnp.inf)[0]),
                     "plain_ok": first_line(f(3.)[0]),
                     "vjp_of_checkify": [first_line(err), len(err._metadata)],
                     "grad_of_checkify": round(float(jax.grad(lambda x: f(x)[1])(3.)), 5),
                     "checkify_of_grad_inf": first_line(
                         checkify.checkify(jax.grad(fun), errors=floats)(jnp.inf)[0])}
    (err, _), (_, _) = jax.jvp(checkify.checkify(sin_j, errors=floats), (3.,), (1.,))
    out["custom_jvp"]["jvp_of_checkify"] = [first_line(err), len(err._metadata)]
    return out


def checkify_shard_map(jax):
    """checkify of a jitted shard_map (checkify_test's test_shard_map): each device's error,
    by its index; with jax_enable_checks on, the body's jaxpr (axis_index varying over the
    manual axis) type-checks."""
    import importlib
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
    P = jax.sharding.PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ["dev"])
    out = {}
    for check_vma in (True, False):
        f = jax.shard_map(lambda x: jax.lax.axis_index("dev") * x / x, mesh=mesh,
                          in_specs=P("dev"), out_specs=P("dev"), check_vma=check_vma)
        f = checkify.checkify(jax.jit(f), errors=checkify.float_checks)
        jax.config.update("jax_enable_checks", True)
        try:
            err, y = f(np.arange(4, dtype=np.int32))
        finally:
            jax.config.update("jax_enable_checks", False)
        out[f"check_vma={check_vma}"] = [err.get(), [repr(float(v)) for v in np.asarray(y)]]
    return out


def check_effects(jax):
    """A jaxpr's effects: a checkify.check's ErrorEffect (its error kind and payload types),
    inside a jit too; none for plain code (checkify_test's test_assert_primitive_jaxpr_effects)."""
    import importlib
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
    jnp = jax.numpy

    def effects(jaxpr):
        return sorted([e.error_type.__name__, [[list(sd.shape), str(sd.dtype)]
                                               for sd in e.shape_dtypes]]
                      for e in jaxpr.effects)

    def f(x):
        checkify.check(False, "hi: {}", x)

    def g(x, y):
        checkify.check(False, "hi: {} {}", x, y)
    x = jnp.ones(4, jnp.int32)
    return {"one": effects(jax.make_jaxpr(f)(x)),
            "two": effects(jax.make_jaxpr(g)(x, jnp.ones(2, jnp.float32))),
            "in_jit": effects(jax.make_jaxpr(jax.jit(f))(x)),
            "plain": effects(jax.make_jaxpr(jnp.sin)(1.0))}


def unique_indices_generator(jax):
    """test_util's rand_indices_unique_along_axis with an axis counted from the end: integer
    indices of the asked shape, also empty (lax_numpy_test's testPutAlongAxis); and
    put_along_axis with them."""
    import importlib
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    gen = jtu.rand_indices_unique_along_axis(np.random.RandomState(0))
    out = {}
    a = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    for shape, axis in (((2, 3, 0), -1), ((2, 3, 2), -1), ((2, 0, 4), -2), ((0, 3, 4), 0)):
        idx = gen(dim=a.shape[axis], shape=shape, axis=axis)
        put = jax.numpy.put_along_axis(a, idx, np.int8(-1), axis=axis, inplace=False,
                                       mode="clip")
        out[str((shape, axis))] = [str(idx.dtype), list(idx.shape),
                                   int((np.asarray(put) == -1).sum())]
    return out


def custom_vjp_cotangent_dtype(jax):
    """A custom_vjp bwd returning a cotangent of another dtype than its primal's: the dtype
    comes out of vjp and grad as bwd made it (lax_test's test_gather_with_asymmetric_dtype)."""
    jnp = jax.numpy

    def widening(to):
        f = jax.custom_vjp(lambda x: x)
        f.defvjp(lambda x: (x, ()), lambda r, g: (g.astype(to),))
        return f
    f8, f16 = widening(jnp.bfloat16), widening(jnp.float32)
    x8 = jnp.arange(8, dtype=jnp.float8_e4m3fn)
    x16 = jnp.arange(3, dtype=jnp.float16)

    def gathered(x):
        return f8(x.at[jnp.argsort(x)].get())
    return {"direct": str(jax.vjp(f8, x8)[1](jnp.ones(8, x8.dtype))[0].dtype),
            "after_gather": str(jax.vjp(gathered, x8)[1](jnp.ones(8, x8.dtype))[0].dtype),
            "grad": str(jax.grad(lambda x: f16(x).sum())(x16).dtype),
            "under_sin": str(jax.vjp(lambda x: jnp.sin(f16(x)), x16)[1](
                jnp.ones(3, jnp.float16))[0].dtype)}


def searchsorted_index_dtype(jax):
    """searchsorted's index dtype for 2^31 - 1 and 2^31 entries, by abstract evaluation: int32,
    then int64 asked for (without x64: JAX's warning, and NumPy's OverflowError for int32)
    (lax_numpy_test's testSearchsortedDtype)."""
    import warnings
    jnp, S = jax.numpy, jax.ShapeDtypeStruct
    v = S((), np.float32)
    out = {"int32": str(jax.eval_shape(jnp.searchsorted, S((2 ** 31 - 1,), np.float32),
                                       v).dtype)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["int64_x32"] = _error(lambda: jax.eval_shape(jnp.searchsorted,
                                                         S((2 ** 31,), np.float32), v))
    out["warnings"] = [str(w.message).split(". ")[0] for w in caught]
    with jax.enable_x64(True):
        out["int64_x64"] = str(jax.eval_shape(jnp.searchsorted, S((2 ** 31,), np.float32),
                                              v).dtype)
    return out


def colored_jaxprs(jax):
    """Jaxprs printed with use_color=True (JAX's highlighting: keywords bold blue, binders'
    types magenta; jax_pprint_use_color's effect in a terminal) and with use_color=False."""
    jnp, lax = jax.numpy, jax.lax
    c = np.arange(3.0, dtype=np.float32)
    funs = [lambda x: jnp.sin(x) * 2 + c,
            lambda x: lax.cond(x[0] > 0, jnp.sin, jnp.cos, x),
            lambda x: jax.jit(lambda y: (y * jnp.inf, y))(x),
            lambda x: lax.scan(lambda s, v: (s + v, s * 2), 0.0, x),
            lambda x: (x.astype(jnp.int32) + 1, x > 1)]
    out = []
    for f in funs:
        closed = jax.make_jaxpr(f)(jnp.ones(3))
        out.append([closed.pretty_print(use_color=True),
                    closed.jaxpr.pretty_print(use_color=False) == str(closed.jaxpr)
                    or "colored by default"])
    return out


def composite_array_consts(jax):
    """A composite whose decomposition closes over an array: the array is the composite's first
    operand and its decomposition's first argument (lax_test's
    test_composite_with_array_consts); the values."""
    import functools
    jnp, lax = jax.numpy, jax.lax

    @functools.partial(lax.composite, name="my.consts")
    def my_consts(x, /, *, scale):
        return jnp.round(x / scale)
    scale = np.array([0.5, 0.4, 0.3], dtype=np.float32)
    x = jnp.array([1.0, 2.0, 3.0], dtype=jnp.float32)
    text = jax.jit(functools.partial(my_consts, scale=scale)).lower(x).as_text()
    lines = [line.strip() for line in text.splitlines()]
    return {"values": np.asarray(my_consts(x, scale=scale)).tolist(),
            "decomposition": [ln.split(" {")[0] for ln in lines if "@my.consts(" in ln],
            "operand_types": [ln.split(" : ")[-1] for ln in lines
                              if ln.startswith("%") and "stablehlo.composite" in ln]}


def trivial_conversions(jax):
    """A convert_element_type to its operand's own dtype and weak type stages no equation
    (JAX's forwarding rule; api_test's test_elide_trivial_convert_element_types), one that
    changes the weak type or dtype does; jacfwd's basis keeps its conversion (its sharding
    is not its operand's type's), jacfwd's and jacrev's blocks drop theirs."""
    jnp, lax = jax.numpy, jax.lax
    x = np.arange(3, dtype="float32")

    def cet(y, dtype=np.float32):
        return lax.convert_element_type(y, dtype)
    programs = {
        "numpy_constant": (lambda: cet(cet(cet(x))), ()),
        "array": (lambda y: cet(cet(y)), (jnp.ones(3),)),
        "weak_to_strong": (lambda y: cet(y), (1.0,)),
        "to_int": (lambda y: cet(cet(y, np.int32), np.int32), (jnp.ones(3),)),
        "jacfwd": (jax.jacfwd(lambda y: jnp.sin(y) * 2), (jnp.ones(3),)),
        "jacrev": (jax.jacrev(lambda y: jnp.sin(y) * 2), (jnp.ones(3),)),
        "jacfwd_astype": (jax.jacfwd(lambda y: y.astype(jnp.float32).sum()), (jnp.ones(3),)),
        "hessian": (jax.hessian(lambda y: (y ** 3).sum()), (jnp.ones(2),)),
        "grad_astype": (jax.grad(lambda y: jnp.sum(y.astype(jnp.float32) * 2)), (jnp.ones(3),)),
        "vmap": (jax.vmap(lambda y: cet(y)), (jnp.ones(3),)),
    }
    return {name: str(jax.make_jaxpr(f)(*args)) for name, (f, args) in programs.items()}


def run(jax):
    return {"vjp_residuals": vjp_residuals(jax),
            "trivial_conversions": trivial_conversions(jax),
            "implementation_switches": implementation_switches(jax),
            "key_issubdtype": key_issubdtype(jax),
            "cond_closure_released": cond_closure_released(jax),
            "pmap_in_eager_loop": pmap_in_eager_loop(jax),
            "checkify_custom_rules": checkify_custom_rules(jax),
            "checkify_shard_map": checkify_shard_map(jax),
            "check_effects": check_effects(jax),
            "unique_indices_generator": unique_indices_generator(jax),
            "custom_vjp_cotangent_dtype": custom_vjp_cotangent_dtype(jax),
            "searchsorted_index_dtype": searchsorted_index_dtype(jax),
            "colored_jaxprs": colored_jaxprs(jax),
            "composite_array_consts": composite_array_consts(jax)}
