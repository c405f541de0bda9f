"""What JAX's shape-polymorphism and export test files (shape_poly_test.py and the export
compatibility files, conformance/jax_tests) import from JAX's private modules, and what it
answers: `run(jax)` on real JAX (reference/make_jax_tests_shape_poly_reference.py) and on
jxkernel (tests/jax_compat/test_jax_tests_shape_poly.py)."""
import importlib


def _private(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _error(fn):
    try:
        return {"value": repr(fn())}
    except Exception as e:           # the error's type and words are the fact
        return {"error": type(e).__name__, "message": str(e)}


# specs JAX reads, or refuses with its syntax error ("... in dimension 1: expecting one of
# {STAR} but found NAME. Parsed 'a + a ', remaining 'a'.")
SPECS = ["2.5", "a + a a", "a ^ a", "a; a", "_", "...", "a ;", ")(", "2a", "a@", "'a'",
         "('a', ...)", "mod(a)", "floordiv(a, b, c)", "..., 3", "a, b)", "a,,b", "", "()",
         "a^0", "-a", "- 3", "a b", "+ 2", "+ a - b", "2*b*a", "a + 1 ,",
         "3 * floordiv(a + 2, b + 2) * 2", "max(a, b)", "a^2 + 3*a - 1",
         "-2 * a^2 * b + -1 *b^2*a", "a, -", "a*", "b - a", "- mod(a, 4) + 3"]
LIKE_SPECS = [("a, _", (2, None)), ("3", (4,)), ("b, 3", (None, 4)), ("b, ...", None),
              ("b, 6, c, _", (4, 6, 7)), ("b, 7, c, ...", (4, 7)), ("a, b", (3,)),
              ("2, _", (2, 3)), ("(a, ...) ", (None, 3)), (None, (2, 3)), ("...", (2,))]
CONSTRAINTS = [("a != 0",), ("a == a + 1",), ("a <= a + 1",), ("a <= a - 1",), ("3 >= 2",),
               ("a >= 5", "b <= 16"), (3,), "a >= 1"]


def parsing(jax) -> dict:
    """What jax.export.symbolic_shape makes of SPECS, LIKE_SPECS and CONSTRAINTS."""
    shape = jax.export.symbolic_shape
    return {"specs": [_error(lambda: shape(spec)) for spec in SPECS],
            "like": [_error(lambda: shape(spec, like=like)) for spec, like in LIKE_SPECS],
            "constraints": [_error(lambda: shape("a, b", constraints=c)) for c in CONSTRAINTS],
            "not_a_string": _error(lambda: shape(3)),
            "args_specs": args_specs(jax)}


def args_specs(jax) -> list:
    """jax.export.symbolic_args_specs with specs as a prefix pytree of the arguments, and
    the errors of one that is not a prefix."""
    import numpy as np
    specs = jax.export.symbolic_args_specs

    def shown(out):
        return repr(jax.tree_util.tree_map(lambda s: (str(s.shape), str(s.dtype)), out))
    args = ((np.zeros((2, 3), np.float32), np.zeros(3, np.int32)), np.zeros(4, np.float32))
    return [_error(lambda: shown(specs(args, spec))) for spec in (
        ("b, _", "c"), ("_, b", None), (("b, _", "b"), "c"), "...", None, ["a", "b"],
        ("a", "b", "c"), {"a": "b"}, ("a, b", "c"))] + [
        _error(lambda: shown(specs([np.zeros(2)], spec))) for spec in (["a list"], ("a tuple",))]


def arithmetic(jax) -> dict:
    """A dimension `2*b` combined with ints, floats and arrays on either side, exported for
    any `b` and called with b=3: each result's aval and value; `**`'s errors; the weak type
    of a dimension as a value."""
    import operator
    import numpy as np
    jnp = jax.numpy
    b, = jax.export.symbolic_shape("b")
    spec = jax.ShapeDtypeStruct((b,), np.int32)
    x = np.arange(3, dtype=np.int32)
    others = [("int", 2), ("np.int32", np.int32(2)), ("float", 2.0),
              ("np.float32", np.float32(2)), ("0-d array", np.array(2, np.int32)),
              ("vector", np.arange(1, 5, dtype=np.int32)),
              ("float vector", np.arange(1.0, 4.0, dtype=np.float32))]
    out = {}
    for name in ("add", "sub", "mul", "floordiv", "mod", "truediv"):
        op = getattr(operator, name)
        for other_name, other in others:
            for swap in (False, True):
                def f(x, op=op, other=other, swap=swap):
                    poly = 2 * x.shape[0]
                    return op(other, poly) if swap else op(poly, other)
                key = f"{name} {other_name}{' swapped' if swap else ''}"
                try:
                    exp = jax.export.export(jax.jit(f))(spec)
                    out[key] = [str(exp.out_avals[0]),
                                np.asarray(exp.call(x)).tolist()]
                except Exception as e:   # the error is the fact
                    out[key] = [type(e).__name__, str(e)]
    pows = {}
    for name, fn in [("cube", lambda x: x.shape[0] ** 3), ("zero", lambda x: x.shape[0] ** 0),
                     ("negative", lambda x: x.shape[0] ** -1),
                     ("non-integer", lambda x: x.shape[0] ** 1.5),
                     ("rpow", lambda x: 2 ** x.shape[0])]:
        try:
            exp = jax.export.export(jax.jit(fn))(spec)
            pows[name] = [str(exp.out_avals[0]), np.asarray(exp.call(x)).tolist()]
        except Exception as e:
            pows[name] = [type(e).__name__, str(e)]
    weak = []

    def g(x):
        weak.append(str(jnp.array(x.shape[0]).aval))
        weak.append(str((x.shape[0] + jnp.array(4)).aval))
        return x
    jax.export.export(jax.jit(g))(spec)
    return {"ops": out, "pow": pows, "weak": weak}


def run(jax) -> dict:
    import numpy as np
    jnp = jax.numpy
    core = _private(jax, "core")
    shape_poly = _private(jax, "export.shape_poly")
    decision = _private(jax, "export.shape_poly_decision")
    discharge = _private(jax, "state.discharge")
    ref = _private(jax, "state.primitives")
    ad_util = _private(jax, "ad_util")
    dispatch = _private(jax, "dispatch")
    private_lax = _private(jax, "lax")
    private_jnp = _private(jax, "numpy")
    a, b = shape_poly.symbolic_shape("a, b")
    best = shape_poly.BoundsPrecision.BEST
    facts = {
        "parsing": parsing(jax),
        "arithmetic": arithmetic(jax),
        "bounds_precision": [(p.name, p.value) for p in shape_poly.BoundsPrecision],
        "bounds": [str(shape_poly._bounds_decision(e, best))
                   for e in (a, a - b, 2 * a + 1, 3 - a, a * b, 5)],
        "decision_bounds": str(decision.bounds_decision(a + 2, best)),
        "bounds_division": [str(shape_poly._bounds_decision(e, best)) for e in (
            (a + 4) // 2, (a + 4) // -2, (a + 5) // 2, 11 // (a + 1), -11 // (a + 1),
            -11 // (-a), (b + 1) // (a + 1), (b + 1) % 2, (b + 1) % -2, (b - 4) % 2,
            (b + 1) % a, 11 % (a + 1), b % (a - 2), core.max_dim(15 - a, 0),
            core.max_dim(15 - a, 0) // 3, core.max_dim(a - 5, 1))],
        "division": [str(e) for e in (
            (10 * a * b - 1) // 10 + 1, (3 * a + 5) // 3, (3 * a + 5) % 3, (3 * a - 2) // 3,
            (3 * a - 2) % 3, (3 * a + 2) // 3, (2 * a + 1) // -2, (2 * a + 1) % -2,
            (a + 4) // 2, (4 * a + b) // 2, (6 * a * b + 4) // 2)],
        "bounds_constrained": [str(shape_poly._bounds_decision(e, best)) for e in (
            lambda c, d: (c, d, 2 * c + 1, 20 - d))(
                *shape_poly.symbolic_shape("c, d", constraints=("c >= 5", "d <= 16")))],
        "stride_dim": [core.stride_dim(10, 3, 2), core.stride_dim(2, 3, 1),
                       core.stride_dim(7, 1, 1), str(core.stride_dim(a, 1, 1)),
                       str(core.stride_dim(a, 3, 2))],
        "dilate_dim": [core.dilate_dim(3, 2), core.dilate_dim(0, 3), core.dilate_dim(4, 1),
                       str(core.dilate_dim(a, 1)), str(core.dilate_dim(a, 2))],
        "definitely_equal": [core.definitely_equal(3, 3), core.definitely_equal(a, a),
                             core.definitely_equal(a, b), core.definitely_equal(a, 3),
                             core.definitely_equal_one_of_dim(a, (b, a)),
                             core.definitely_equal_one_of_dim(3, (1, 2))],
        "is_constant_dim": [core.is_constant_dim(3), core.is_constant_dim(np.int32(2)),
                            core.is_constant_dim(a), core.is_constant_dim(2.5)],
        "is_symbolic_dim": [core.is_symbolic_dim(a), core.is_symbolic_dim(3),
                            core.is_symbolic_dim(np.int64(3))],
        "dimension_as_value": [repr(core.dimension_as_value(3)),
                               _error(lambda: core.dimension_as_value(2.5))["error"]],
        "add_jaxvals_is_add_any": ad_util.add_jaxvals_p is ad_util.add_any_p,
        "primitive_names": [ad_util.add_any_p.name, ad_util.stop_gradient_p.name,
                            dispatch.device_put_p.name,
                            private_lax.linalg.cholesky_p.name],
        "copy_semantics": dispatch.ArrayCopySemantics.REUSE_INPUT.name,
        "private_jnp": [private_jnp.take is jnp.take, private_jnp.triu is jnp.triu,
                        private_jnp.linalg.solve is jnp.linalg.solve],
    }

    def update(x_ref):
        ref.ref_addupdate(x_ref, slice(2, 5), jnp.ones(3, np.float32))
        ref.ref_set(x_ref, slice(2, 5), ref.ref_get(x_ref, slice(2, 5)) * 2)

    # the options export_back_compat_test.py sets on its test class
    facts["threefry_gpu_kernel_lowering"] = [jax.config.jax_threefry_gpu_kernel_lowering]
    with _private(jax, "config").threefry_gpu_kernel_lowering(True):
        facts["threefry_gpu_kernel_lowering"].append(jax.config.jax_threefry_gpu_kernel_lowering)
    x = np.ones(8, np.float32)
    facts["run_state"] = np.asarray(discharge.run_state(update)(x)).tolist()
    facts["run_state_jit"] = np.asarray(jax.jit(discharge.run_state(update))(x)).tolist()
    facts["run_state_input_kept"] = x.tolist()

    def swap_pair(refs):
        r1, r2 = refs
        v1 = ref.ref_get(r1, ())
        ref.ref_set(r1, (), ref.ref_get(r2, ()))
        ref.ref_set(r2, (), v1)

    out = discharge.run_state(swap_pair)((np.float32(1), np.float32(2)))
    facts["run_state_pytree"] = [float(v) for v in out]
    return facts
