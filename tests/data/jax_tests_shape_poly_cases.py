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


def _scoped(text: str) -> str:
    """An error's text with its scopes' ids and files left out (their line, column and
    function kept): "N created at jax_tests_shape_poly_cases.py:12:4 (f)"."""
    import re
    return re.sub(r"\d+ created at (?:\S*/)?([^/\s]+:\d)", r"N created at \1", text)


def scopes(jax) -> dict:
    """Symbolic dimensions' own answers (JAX-named methods, bounds through floordiv and
    mod, hashing) and the errors of mixing scopes and of undecidable comparisons under
    constraints, in JAX's words."""
    import operator
    core = _private(jax, "core")
    shape_poly = _private(jax, "export.shape_poly")
    best = shape_poly.BoundsPrecision.BEST
    a, b = shape_poly.symbolic_shape("a, b")
    c, = shape_poly.symbolic_shape("a", constraints=("a >= 5", "a <= 10"))
    d, = shape_poly.symbolic_shape("a", constraints=("a <= 10",))
    mixed = {}
    for name, fn in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                     ("mod", operator.mod), ("floordiv", operator.floordiv),
                     ("ge", operator.ge), ("lt", operator.lt), ("max_dim", core.max_dim),
                     ("min_dim", core.min_dim), ("floordiv 2*c", lambda x, y: (2 * x) // y),
                     ("floordiv c*c", lambda x, y: (x * x) // y),
                     ("mod c + 1", lambda x, y: (x + 1) % (y * y))]:
        mixed[name] = _scoped(_error(lambda: fn(c, d)).get("message", "no error"))
    return {
        "get_vars": [sorted(a._get_vars()), sorted((a * b * a)._get_vars()),
                     sorted((a // b + 1)._get_vars())],
        "evaluate": [int(e._evaluate(env)) for e, env in (
            (a * a - b, dict(a=2, b=3)), ((a * a) // b, dict(a=2, b=3)),
            ((a * a) % b, dict(a=5, b=7)))],
        "eq": [(2 * a * b * a + 3)._eq(1 + b * a * a + a * a * b + 2),
               (2 * a * b * a + 3)._eq(a * b * a + 3), (a * b * a + 3)._eq(a * b * a + 4),
               (3 * a * b * a - 1)._eq(a * b * a)],
        "bounds_narrowed": [str(shape_poly._bounds_decision(e, best)) for e in (
            a - a // 2, a - 5 % a, a - a % 3, 2 * (a // 2) - a, (b + 1) - (b + 1) // 2)],
        "division_by_0": [_error(lambda: shape_poly._bounds_decision(a // (a - 3), best)),
                          _error(lambda: a // (a - 3) >= 0), _error(lambda: a % (a - 3) >= 0)],
        "hash_by_scope": [hash(c) == hash(d), c == d],
        "scope": _scoped(str(c.scope)),
        # (the constraint "mod(b, 4) == 0" implies listed before it, the trivial one left out)
        "scope_listed": (lambda b, e: [_scoped(str(b.scope)), _error(lambda: e >= 3)["message"]])(
            shape_poly.symbolic_shape("b, c", constraints=(
                "mod(b, 4) == 0", "c <= c + 1", "c >= 3"))[0],
            shape_poly.symbolic_shape("e", constraints=("e <= e + 1",))[0]),
        "mixed_scopes": mixed,
        "inconclusive": [_scoped(_error(lambda: c >= 6)["message"]),
                         _error(lambda: a >= 6)["message"]],
    }


def eliminations(jax) -> dict:
    """Bounds by JAX's decision procedure under constraints it combines with each other
    (shape_poly_decision's elimination, imprecision included), comparisons it decides from
    an equality, and its error for constraints that cannot hold."""
    core = _private(jax, "core")
    shape_poly = _private(jax, "export.shape_poly")
    best = shape_poly.BoundsPrecision.BEST
    shape = shape_poly.symbolic_shape

    def bounds(*es):
        return [str(shape_poly._bounds_decision(e, best)) for e in es]
    a, b, c = shape("a, b, c", constraints=("a + 2 <= b", "b <= a + 5", "a + b >= c"))
    out = {"complex": bounds(b, b - a, b - a - 7, c - 2 * a - 5)}
    a, = shape("a", constraints=("2 * a >= 5", "3 * a <= 10"))
    out["fractional"] = bounds(a, 5 * a - 2)
    a, d = shape("a, d", scope=shape_poly.SymbolicScope(["4*d == a - m", "m >= 0", "m <= 3"]))
    out["a_minus_4d"] = bounds(a - 4 * d, a - 2 * d, a)
    a1, a2, a3, a4, a5 = shape("a1, a2, a3, a4, a5", constraints=(
        "a1 >= a2", "a2 >= a3", "a3 >= a4", "a4 >= a5"))
    out["chain"] = bounds(a1 - a5, a1 - a3)
    a1, a2 = shape("a1, a2", constraints=("2*a1 >= 2*a2 + 3", "-2*a1 + 2*a2 >= -5"))
    out["rounding"] = bounds(a1 - a2 - 2, a2 - a1 + 2)
    a, b = shape("a, b", constraints=("min(a, b) == b - min(b, 2)",))
    out["min_equality"] = bounds(b) + [str(core.min_dim(b, 2))]
    a, b, c, d = shape("a, b, c, d")
    out["max_terms"] = bounds(b - core.max_dim(b - a, 0), core.max_dim(a, b) - a,
                              core.max_dim(a, b) - a - core.max_dim(b - a, 0),
                              a - core.min_dim(a, b))
    a, b = shape("a, b", constraints=("a >= 4", "3 >= b"))
    out["derived"] = [a >= b, str(core.max_dim(a, b)), str(core.min_dim(a, b)), a // 3 >= 1] + \
        bounds(a + b, a - b)
    a, b = shape("a, b", constraints=["4 * a == b"])
    out["equality_compared"] = [b >= a, b >= 3 * a, b >= 4 * a, 5 * a >= b, 9 * a >= 2 * b]
    a, b = shape("a, b", constraints=("a <= 0",))
    out["unsatisfiable"] = _error(lambda: a >= b)
    return out


def _size_trees(text: str) -> list:
    """The arithmetic of each size an exported module reshapes to a tensor<1xi32> (the
    result's sizes), as nested operations in the order the module computes them, over the
    dimension variables (of spec "a, b") and constants: "add(mul(b,a),a)"."""
    import re
    trees = []
    for func in text.split("func.func")[1:]:
        env = {arg: name for arg, name in re.findall(
            r'(%arg\d+): tensor<i32> \{jax.global_constant = "(\w+)"', func)}
        for line in func.splitlines():
            m = re.search(r"(%\S+) = stablehlo\.constant dense<(-?\d+)> : tensor<i32>", line)
            if m:
                env[m[1]] = m[2]
            m = re.search(r"(%\S+) = stablehlo\.get_dimension_size %arg0, dim = (\d)", line)
            if m:
                env[m[1]] = "ab"[int(m[2])]
            m = re.search(r"(%\S+) = stablehlo\.convert (%\S+) : tensor<i32>", line)
            if m:
                env[m[1]] = env.get(m[2], "?")
            m = re.search(r"(%\S+) = stablehlo\.(multiply|add|subtract) (%\S+), (%\S+) : "
                          r"tensor<i32>", line)
            if m:
                env[m[1]] = f"{m[2][:3]}({env.get(m[3], '?')},{env.get(m[4], '?')})"
            m = re.search(r"stablehlo\.reshape (%\S+) : \(tensor<i32>\) -> tensor<1xi32>", line)
            if m:
                trees.append(env.get(m[1], "?"))
    return trees


def lowering(jax) -> dict:
    """Sizes computed in an exported module: the operations, their operands' order and the
    terms' order, as JAX's lowering builds them (sums and products of dimension variables;
    floordiv and mod, which JAX computes through jnp's divmod, are not compared). And
    symbolic sizes outside jax.export (no argument gives their variables): JAX's
    UnexpectedDimVar, eagerly and under jit; `core.max_dim` of a traced value or an array."""
    import numpy as np
    jnp, lax = jax.numpy, jax.lax
    core = _private(jax, "core")
    a, b = jax.export.symbolic_shape("a, b", constraints=("a >= b",))
    arg = jax.ShapeDtypeStruct((a, b), np.float32)
    sizes = {"2*a + b + 1": lambda a, b: 2 * a + b + 1, "a*b + a": lambda a, b: a * b + a,
             "a*a*b": lambda a, b: a * a * b, "3*a - b": lambda a, b: 3 * a - b,
             "a*b*b + 2*a*a + b": lambda a, b: a * b * b + 2 * a * a + b,
             "b*a + 3": lambda a, b: b * a + 3, "a*a*a + 2": lambda a, b: a * a * a + 2}
    trees = {}
    for name, size in sizes.items():
        exp = jax.export.export(jax.jit(lambda x, size=size: jnp.zeros((size(*x.shape),))))(arg)
        trees[name] = _size_trees(exp.mlir_module())
    c, = jax.export.symbolic_shape("c")
    outside = {}
    for name, fn in [("zeros", lambda: jnp.zeros((c + 1,))), ("ones", lambda: jnp.ones((2, c))),
                     ("full", lambda: jnp.full((c,), 3.0)), ("arange", lambda: jnp.arange(c)),
                     ("broadcast_in_dim", lambda: lax.broadcast_in_dim(1.0, (c,), ())),
                     ("jit zeros", lambda: jax.jit(lambda: jnp.zeros((c + 1,)))())]:
        e = _error(fn)
        outside[name] = [e.get("error"), e.get("message")]
    arr = jnp.array([1], dtype=np.int32)
    concrete = {}
    for name, fn in [("max_dim(array, c)", lambda: core.max_dim(arr, c)),
                     ("min_dim(c, array)", lambda: core.min_dim(c, arr)),
                     ("jit max_dim(x, c)", lambda: jax.jit(lambda x: core.max_dim(x, c))(1)),
                     ("jit min_dim(c, x)", lambda: jax.jit(lambda x: core.min_dim(c, x))(1))]:
        e = _error(fn)
        concrete[name] = e.get("error") if "jit" in name else [e.get("error"), e.get("message")]
    return {"size_arithmetic": trees, "outside_export": outside, "concrete_dims": concrete}


# The facts that jax.export a program (XLA's StableHLO: jxkernel's NumPy backend refuses it)
EXPORTING = ("lowering", "arithmetic")


def run(jax, leave_out=()) -> dict:
    """Every fact, but those named in `leave_out` (EXPORTING, where nothing exports)."""
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
        "scopes": scopes(jax),
        "eliminations": eliminations(jax),
    }
    facts.update((name, fn(jax)) for name, fn in (("lowering", lowering),
                                                  ("arithmetic", arithmetic))
                 if name not in leave_out)
    facts.update({
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
    })

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
