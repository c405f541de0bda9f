"""Cases on JAX's private modules that JAX's own test files import (jax._src.literals, ...),
run by reference/make_private_modules_reference.py with JAX 0.10.2 and by
tests/jax_compat/test_private_modules.py with jxkernel. Each case takes the side's modules and
returns JSON: reprs, dtype names, avals as text."""
import importlib
import pickle


def _answer(f):
    """f() or the class and words of what it raised."""
    try:
        return f()
    except Exception as e:          # noqa: BLE001 (the raised class is the answer)
        return f"{type(e).__name__}: {e}"


def _warned(f):
    """[f(), the warnings it gave as "Category: message"]: JAX's warnings are part of its answer."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = f()
    return [value, [f"{w.category.__name__}: {w.message}" for w in caught]]


def literals(jax, literals, dtypes, core, np):
    """Typed scalars and TypedNdArray: dtypes kept uncanonicalized (x64 off), weak avals,
    reprs, pickling, and what canonicalize_value makes of host values."""
    i64, f32 = np.dtype(np.int64), np.dtype(np.float32)
    scalars = {"int64": literals.TypedInt(6, i64), "int32": literals.TypedInt(-2, np.dtype(np.int32)),
               "float64": literals.TypedFloat(1.5, np.dtype(np.float64)),
               "float32": literals.TypedFloat(2, f32),
               "complex128": literals.TypedComplex(1 + 2j, np.dtype(np.complex128)),
               "complex64": literals.TypedComplex(3, np.dtype(np.complex64))}
    weak = literals.TypedNdArray(np.array([6, 7], i64), core.ShapedArray((2,), i64, weak_type=True))
    arrays = {"int64": literals.TypedNdArray(np.array([6], i64)), "weak": weak,
              "empty": literals.TypedNdArray(np.zeros((0, 2))),
              "slice_of_weak": weak[1:], "wide": literals.TypedNdArray(np.arange(40.0))}
    out = {"scalar_" + k: {"repr": repr(v), "str": str(v), "dtype": str(dtypes.dtype(v)),
                           "typeof": str(jax.typeof(v)), "weak": dtypes.is_weakly_typed(v),
                           "pickled": repr(pickle.loads(pickle.dumps(v))),
                           "canonical": repr(dtypes.canonicalize_value(v)),
                           "is_int": isinstance(v, int), "plus_one": repr(v + 1)}
           for k, v in scalars.items()}
    out.update({"array_" + k: {"repr": repr(v), "dtype": str(dtypes.dtype(v)),
                               "typeof": str(jax.typeof(v)), "weak": dtypes.is_weakly_typed(v),
                               "canonical": repr(dtypes.canonicalize_value(v)),
                               "plus_one_type": type(v + 1).__name__}
                for k, v in arrays.items()})
    hosts = {"int": 6, "float": 2.5, "complex": 1j, "bool": True, "np_int64": np.int64(3),
             "np_array": np.arange(3), "float0": np.zeros((2,), dtypes.float0),
             "str": "a", "list": [1]}
    out["canonicalize_value"] = {k: _answer(lambda v=v: type(dtypes.canonicalize_value(v)).__name__
                                            + " " + repr(dtypes.canonicalize_value(v)))
                                 for k, v in hosts.items()}
    jnp = jax.numpy
    t = scalars["int64"]
    out["in_jax"], out["in_jax_warnings"] = _warned(lambda: {
        "jit_identity": repr(jax.jit(lambda x: x)(t)),
        "jit_identity_array": repr(jax.jit(lambda x: x)(arrays["int64"])),
        "add_one": repr(jnp.add(t, 1)),
        "float_jaxpr": str(jax.make_jaxpr(lambda x: x + scalars["float64"])(1.0)),
        "device_put": repr(jax.device_put(t))})
    return out


def _name(t) -> str:
    """A dtype or weak type by name: 'int8', or 'int' for Python's int."""
    return t.__name__ if isinstance(t, type) else str(t)


def dtypes_private(jax, dtypes, config, np):
    """jax._src.dtypes's names that JAX's dtypes_test reads: the promotion lattice's nodes in
    JAX's order, the (dtype, weak) <-> node maps, promote_types with Python's types (weak),
    itemsize_bits, the narrow scalar types, dtype() under each jax_explicit_x64_dtypes mode."""
    import warnings
    jnp = jax.numpy
    nodes = dtypes._jax_types + dtypes._weak_types
    out = {"jax_types": [_name(t) for t in nodes],
           "node_of_type": _warned(lambda: [_name(dtypes._jax_type(*dtypes._dtype_and_weaktype(t)))
                                            for t in nodes]),
           "weak_node": [_name(dtypes._jax_type(t, True)) for t in dtypes._jax_types],
           "defaults": [_name(t) for t in (dtypes.bool_, dtypes.int_, dtypes.uint, dtypes.float_,
                                          dtypes.complex_)],
           "narrow": [_name(getattr(dtypes, n)) for n in ("int1", "uint1", "int4", "bfloat16",
                                                          "float8_e4m3fn", "float4_e2m1fn",
                                                          "float6_e2m3fn")],
           "itemsize_bits": [dtypes.itemsize_bits(t) for t in
                             ("bool", "int1", "int4", "uint2", "int8", "float4_e2m1fn",
                              "float6_e3m2fn", "float8_e5m2", "bfloat16", "float64",
                              "complex64", "complex128")],
           "itemsize_bits_none": _answer(lambda: dtypes.itemsize_bits(None))}
    pairs = [(np.int8, int), (np.int8, float), ("float8_e5m2", float), (int, float),
             (np.uint32, np.int32), (bool, int), (np.dtype("int4"), int), ("bfloat16", complex)]
    for promotion in ("standard", "strict"):
        with jax.numpy_dtype_promotion(promotion):
            out["promote_types_" + promotion] = [
                _answer(lambda a=a, b=b: str(dtypes.promote_types(a, b))) for a, b in pairs]
            # (its error's words list the dtypes in the order of a set of types: by id in JAX)
            out["lattice_" + promotion] = [
                _answer(lambda a=a, b=b: str(dtypes.lattice_result_type(a, b))).split(":")[0]
                for a, b in pairs]
    for mode in config.ExplicitX64Mode.__members__.values():
        with config.explicit_x64_dtypes(mode), warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = [_answer(lambda t=t: str(dtypes.dtype(t))) for t in
                   (np.int64, "float64", np.dtype(np.complex128), np.int32, int, 2.0)]
            out[f"dtype_{mode.name}"] = got + [len(seen)]
            out[f"zeros_float64_{mode.name}"] = _answer(
                lambda: str(jnp.zeros(2, np.float64).dtype)) if mode.name != "ALLOW" else None
    out["explicit_modes"] = {k: int(v) for k, v in config.ExplicitX64Mode.__members__.items()}
    out["user_dtype"] = [_answer(lambda t=t: str(dtypes.check_and_canonicalize_user_dtype(t)))
                         for t in (float, "int8", np.dtype("O"))]
    out["user_dtype_array"] = _answer(lambda: dtypes.check_and_canonicalize_user_dtype(jnp.ones(2)))
    return out


def primal_tangent(jax, dtypes, np):
    """primal_tangent_dtype: int8 values differentiated as bfloat16 (JAX's dtypes_test), the
    gradient taken through a custom_gradient, a convert_element_type and a cond."""
    jnp = jax.numpy
    dt = dtypes.primal_tangent_dtype(jnp.int8, jnp.bfloat16)
    x = jnp.arange(3, dtype=jnp.int8)
    g = jnp.array([1.5, -2.0, 4.0], jnp.bfloat16)

    @jax.custom_gradient
    def f(x):
        return jnp.int8(x).astype(g.dtype) * 2 + 1, lambda g: (2 * g,)

    def plain(x):
        return jax.lax.convert_element_type(x, jnp.int8).astype(jnp.bfloat16) * 3

    def run(f):
        def h():
            result, bwd = jax.vjp(f, x.astype(dt))
            return result, bwd(g)[0]
        result, back = jax.jit(h)()
        return [str(result.dtype), result.tolist(), str(back.dtype), back.astype(float).tolist()]

    f32_dt = dtypes.primal_tangent_dtype(jnp.int8, jnp.float32)

    def loss(w, pred):
        w_dt = w.astype(jnp.int8).astype(f32_dt)
        on = lambda: jnp.sum(jax.lax.convert_element_type(w_dt, jnp.int8).astype(jnp.float32))
        return jax.lax.cond(pred, on, lambda: jnp.float32(0.0))

    return {"repr": repr(dt), "equal": dt == dtypes.primal_tangent_dtype(jnp.int8, jnp.bfloat16),
            "custom_gradient": run(f), "convert": run(plain),
            "cond_grad": [jax.jit(jax.grad(loss))(jnp.arange(3.0), p).tolist()
                          for p in (True, False)]}


def result_handler_wrap(jax, dtypes, core, pxla, earray, np):
    """An extended dtype whose result handler wraps its data with the physical handler's
    `wrap` (JAX's dtypes_test EArrayTest): made and consumed, eagerly and under jit."""
    import dataclasses

    class foo(dtypes.extended):
        pass

    class FooTyRules:
        allow_conversion = True

        @staticmethod
        def physical_element_aval(foo_dtype):
            return core.ShapedArray((), np.dtype("float32"))

        @staticmethod
        def global_sharded_result_handler(aval, out_sharding, committed):
            maker = pxla.global_result_handlers[core.ShapedArray]
            handler = maker(core.physical_aval(aval), out_sharding, committed)
            return handler.wrap(lambda arr: earray.EArray(aval, arr))

    @dataclasses.dataclass(frozen=True)
    class FooTy(dtypes.ExtendedDType):
        name: str = "foo"
        _rules: type = FooTyRules
        type: type = foo

    out = {}
    for jit in (False, True):
        wrap = jax.jit if jit else (lambda f: f)
        x = wrap(lambda x: jax.lax.convert_element_type(x, FooTy()))(jax.numpy.arange(3.0))
        y = wrap(lambda x: x)(x)
        back = wrap(lambda y: jax.lax.convert_element_type(y, "float32"))(y)
        out[f"jit={jit}"] = [type(x.dtype).__name__, type(y).__name__, str(y.shape),
                             back.tolist()]
    return out


def tree_util_private(tree_util, jax):
    """jax._src.tree_util's broadcast_flattened_prefix_with_treedef (prefix leaves repeated over
    the full tree's leaves; errors where it is no prefix) and dispatch_registry."""
    tu = jax.tree_util
    cases = [((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))), ([1, 2], [[3, 4], {"a": 5}]),
             ({"x": 1, "y": (2, 3)}, {"x": [0, 0, 0], "y": (None, [0, 0])}),
             ((1, 2, 3), (0, {"a": 0, "b": 0})), ((1, 2), (0, {"a": 0, "b": 0}, (0, 0))),
             ((1, {"a": 0}), (0, {"a": 0, "b": 0})), (None, None), (5, [1, (2, 3)])]
    out = [_answer(lambda p=p, f=f: tree_util.broadcast_flattened_prefix_with_treedef(
        *tu.tree_flatten(p), tu.tree_structure(f))) for p, f in cases]
    leaves1, treedef1 = tree_util.default_registry.flatten({"a": (1, [2])})
    leaves2, treedef2 = tree_util.dispatch_registry.flatten({"a": (1, [2])})
    return {"broadcast": out, "dispatch_same": [leaves1 == leaves2, treedef1 == treedef2]}


def compile_counts(jax, jtu):
    """jtu.count_jit_and_pmap_lowerings: a jitted function's first call lowers, its second
    does not."""
    f = jax.jit(lambda x: jax.numpy.sin(x) * 2)
    counts = []
    for _ in range(2):
        with jtu.count_jit_and_pmap_lowerings() as count:
            f(3.0)
        counts.append(count())
    return counts


def checkify_index_checks(jax, checkify, checkify_private):
    """checkify's index checks: a static out-of-bounds int index (taken by a dynamic_slice,
    as JAX's jnp does, so checked), eagerly and under jit; gather and scatter indices checked
    with jax_numpy_rank_promotion='raise'; ErrorEffect's order over ShapeDtypeStructs; JAX's
    refusal of a vmapped while loop."""
    jnp = jax.numpy

    def f(x, i):
        return jnp.cos(jnp.sin(x)[i])

    out = {}
    for jit in (False, True):
        checked = checkify.checkify(jax.jit(f) if jit else f, errors=checkify.index_checks)
        out[f"static_index_jit={jit}"] = [checked(jnp.arange(3), i)[0].get() for i in (2, 5, -5)]
    x = jnp.ones((2, 3, 7))
    ops = {"get": lambda r: r.get(), "set": lambda r: r.set(1.0), "add": lambda r: r.add(1.0),
           "min": lambda r: r.min(1.0)}
    with jax.numpy_rank_promotion("raise"):
        for name, op in ops.items():
            checked = checkify.checkify(jax.jit(lambda x, i, op=op: op(x.at[i])),
                                        errors=checkify.index_checks)
            out["at_" + name] = [checked(x, i)[0].get() for i in
                                 (((1, 20), (1, 4)), ((1, 20), (3, 4)), (0, 5, 100), 1)]
    def batched_while(n, v):
        def cond(s):
            checkify.check(s[1] < 6, "value needs to be less than 6!")
            return s[0] > 0
        return jax.lax.while_loop(cond, lambda s: (s[0] / s[1], s[1] - 1.0), (n, v))[1]

    out["vmap_of_while"] = _answer(lambda: checkify.checkify(
        jax.vmap(batched_while), errors=checkify.all_checks)(jnp.ones(3), jnp.ones(3)) and None)
    sds = jax.ShapeDtypeStruct
    effects = [checkify_private.ErrorEffect(kind, shapes) for kind, shapes in [
        (checkify_private.OOBError, (sds((2,), jnp.float32),)),
        (checkify_private.FailedCheckError, (sds((2,), jnp.int32), sds((2,), jnp.float32))),
        (checkify_private.FailedCheckError, (sds((2,), jnp.float32),)),
        (checkify_private.FailedCheckError, (sds((3,), jnp.int32),))]]
    out["effect_order"] = [[e.error_type.__name__, [[list(s.shape), str(s.dtype)]
                                                    for s in e.shape_dtypes]]
                           for e in sorted(effects)]
    return out


def nn_edges(jax, core_private, np):
    """jax.nn pieces JAX's nn_test checks: float64 attention with a mask under
    jax_debug_infs (its fill value finite, softmax's initial -inf no computed inf), one_hot's
    ConcretizationTypeError for a traced num_classes and its warning for float input."""
    import warnings
    jnp = jax.numpy
    out = {}
    with jax.enable_x64(True), jax.debug_infs(True):
        mask = jnp.arange(7) <= 3
        try:
            att = jax.nn.dot_product_attention(jnp.zeros((5, 6, 11)), jnp.zeros((7, 3, 11)),
                                               jnp.zeros((7, 3, 11)), mask=mask)
            out["attention_f64_debug_infs"] = [str(att.dtype), list(att.shape)]
        except FloatingPointError as e:
            out["attention_f64_debug_infs"] = f"FloatingPointError: {e}"
        out["max_initial_debug_infs"] = jax.vmap(
            lambda v: jnp.max(v, initial=-jnp.inf))(jnp.ones((2, 3))).tolist()
    try:
        jax.jit(lambda n: jax.nn.one_hot(jnp.arange(3), n))(3)
        out["one_hot_traced"] = "no error"
    except core_private.ConcretizationTypeError as e:
        out["one_hot_traced"] = "ConcretizationTypeError: " + str(e).splitlines()[0]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jax.nn.one_hot(jnp.array([1.0]), 3)
    out["one_hot_float"] = [[w.category.__name__, str(w.message)] for w in seen]
    return out


def module_homes(jax, checkify, checkify_private):
    """Where custom_jvp and custom_vjp say they live (`__module__`, the package's own name made
    'jax'), found again there and through pickle; and jax._src.checkify's private helpers a
    library may reach (`_reduce_any_error` of a vmapped check's error: the failing entry)."""
    jnp = jax.numpy
    made = [jax.custom_jvp(lambda x: x), jax.custom_vjp(lambda x: x)]
    homes = {}
    for kind, value in zip((jax.custom_jvp, jax.custom_vjp), made):
        home = importlib.import_module(kind.__module__)
        homes[kind.__name__] = {
            "path": f"{kind.__module__}.{kind.__qualname__}".replace(jax.__name__, "jax"),
            "instance_path": f"{type(value).__module__}.{type(value).__qualname__}".replace(
                jax.__name__, "jax"),
            "found_at_home": getattr(home, kind.__qualname__) is kind,
            "pickled": pickle.loads(pickle.dumps(kind)) is kind}

    def positive(x):
        checkify.check(x > 0, "not positive: {}", x)
        return x
    err, _ = jax.vmap(checkify.checkify(positive))(jnp.array([1., -2., 3.]))
    reduced = checkify_private._reduce_any_error(err)
    helpers = {name: hasattr(checkify_private, name)
               for name in ("_reduce_any_error", "tree_map", "check_p", "init_error",
                            "update_error", "assert_func", "_check_error", "ErrorEffect")}
    return {"homes": homes, "helpers": helpers, "batched": _answer(err.get),
            "reduced": _answer(reduced.get)}


def error_homes(jax, checkify, checkify_private):
    """Where the classes a user meets in a traceback or a repr say they live (`__module__` and
    `__qualname__`, the package's own name made 'jax'), found again there and through pickle:
    jax.errors' classes, checkify's error classes (jax._src.checkify's; the public module has
    only JaxRuntimeError and Error of them), CustomVJPPrimal, custom_gradient and
    closure_convert (jax._src.custom_derivatives's); the class of each error checkify reports,
    and the printed sets of checks and ErrorCategory."""
    jnp, name = jax.numpy, jax.__name__

    def home(obj):
        where = importlib.import_module(obj.__module__)
        return {"path": f"{obj.__module__}.{obj.__qualname__}".replace(name, "jax"),
                "found_at_home": getattr(where, obj.__qualname__) is obj,
                "pickled": pickle.loads(pickle.dumps(obj)) is obj}
    derivatives = importlib.import_module(name + "._src.custom_derivatives")
    things = {f"errors.{n}": getattr(jax.errors, n) for n in (
        "ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError",
        "JAXTypeError", "JaxprTypeError", "KeyReuseError", "NonConcreteBooleanIndexError",
        "TracerArrayConversionError", "TracerBoolConversionError",
        "TracerIntegerConversionError", "UnexpectedTracerError")}
    things.update({f"checkify.{n}": getattr(checkify_private, n) for n in (
        "JaxRuntimeError", "Error", "JaxException", "FailedCheckError", "NaNError",
        "OOBError", "DivisionByZeroError")})
    things.update({f"custom_derivatives.{n}": getattr(derivatives, n) for n in (
        "CustomVJPPrimal", "custom_gradient", "closure_convert")})
    out = {"homes": {k: home(v) for k, v in things.items()},
           "public_checkify": [n for n in ("JaxRuntimeError", "Error") if
                               getattr(checkify, n) is getattr(checkify_private, n)],
           # the public module's names: its error classes stay in the private one
           "public_checkify_names": sorted(n for n in dir(checkify) if not n.startswith("_")),
           "error_category": repr(checkify.ErrorCategory).replace(name, "jax"),
           "check_sets": {n: sorted(repr(c).replace(name, "jax") for c in getattr(checkify, n))
                          for n in ("user_checks", "float_checks", "all_checks")}}

    def positive(x, i):
        checkify.check(x[0] > 0, "not positive: {}", x[0])
        return jnp.log(x[i] - 1.0) / x[1]
    reported = {}
    for label, args in (("user", (jnp.array([-1.0, 1.0]), 0)),
                        ("oob", (jnp.array([2.0, 1.0]), 5)),
                        ("nan", (jnp.array([2.0, 0.5]), 1)),
                        ("div", (jnp.array([2.0, 0.0]), 0))):
        err, _ = checkify.checkify(positive, errors=checkify.all_checks)(*args)
        e = err.get_exception()
        reported[label] = {"class": f"{type(e).__module__}.{type(e).__qualname__}".replace(
            name, "jax"), "str": str(e).split(" (check failed at")[0]}
        try:
            err.throw()
        except Exception as thrown:        # noqa: BLE001 (its class is the answer)
            reported[label]["thrown"] = f"{type(thrown).__module__}." \
                f"{type(thrown).__qualname__}".replace(name, "jax")
    out["reported"] = reported
    return out


def api_util_private(jax, api_util):
    """resolve_kwargs and flatten_axis_resources (JAX's api_util_test): positions by the
    signature, JAX's TypeError for a keyword-only argument, and the prefix errors of a tree of
    shardings (the arguments tuple's, and each mismatch's)."""
    def fun(x, y, z=3, *, kw=True):
        return x, y, z
    out = {"resolve": [_answer(lambda: list(api_util.resolve_kwargs(fun, (1,), {"y": 2}))),
                       _answer(lambda: list(api_util.resolve_kwargs(fun, (), {"x": 1, "y": 2}))),
                       _answer(lambda: api_util.resolve_kwargs(fun, (1, 2), {"kw": False}))]}
    tree = jax.tree.structure({"a": 1, "b": 2})
    flat = []
    for shardings in ({"a": None, "b": (None, None)}, {"a": [None, None], "b": (None, None)},
                      (None, None, None), [None, None], {"a": None, "b": None}):
        for tupled in (False, True):
            flat.append(_answer(lambda: list(api_util.flatten_axis_resources(
                "test_spec", tree, shardings, tupled))))
    one = jax.tree.structure(((1, 2),))
    flat.append(_answer(lambda: api_util.flatten_axis_resources("s", one, (None, None), True)))
    out["flatten_axis_resources"] = flat
    return out


def jaxpr_util_counts(jax, jaxpr_util):
    """jaxpr_util's counts over programs with nested jaxprs (JAX's jaxpr_util_test): by
    primitive, by primitive and result types, the equations, the source lines' total."""
    jnp, lax = jax.numpy, jax.lax

    def f(x, y):
        return jnp.sin(jax.jit(jnp.sin)(x)) + jnp.cos(y)

    def g(x, y):
        return jnp.sin(jax.jit(lambda a, b: jnp.sum(jnp.array([a, b])))(x, y)) + jnp.cos(y)

    def h(x):
        return lax.cond(x > 0, lambda x: x + 2, lambda x: x - 2, x)
    out = {}
    for name, fun, args in (("f", f, (1., 1.)), ("g", g, (1., 1.)), ("h", h, (42,))):
        closed = jax.make_jaxpr(fun)(*args)
        out[name] = {"primitives": jaxpr_util.primitives(closed.jaxpr),
                     "by_shape": jaxpr_util.primitives_by_shape(closed.jaxpr),
                     "count": jaxpr_util.count_eqns(closed),
                     "lines": sum(jaxpr_util.source_locations(closed.jaxpr).values())}
    return out


def eval_jaxpr_literals(jax, core, extend_core):
    """jax._src.core's eval_jaxpr and jaxpr_as_fun (and jax.core's, jax.extend.core's) on a
    jaxpr whose outputs include literals: each output's type and repr (a literal as its
    value, a TypedFloat or TypedInt, never the Literal)."""
    closed = jax.make_jaxpr(lambda x: (x, 1.0, 2, True, x * 2.0))(2.0)
    runs = {"src_core": core.eval_jaxpr(closed.jaxpr, closed.consts, 2.0),
            "src_core_jaxpr_as_fun": core.jaxpr_as_fun(closed)(2.0),
            "core": jax.core.eval_jaxpr(closed.jaxpr, closed.consts, 2.0),
            "extend_core_jaxpr_as_fun": extend_core.jaxpr_as_fun(closed)(2.0)}
    return {name: [[type(v).__name__, repr(v)] for v in outs] for name, outs in runs.items()}
