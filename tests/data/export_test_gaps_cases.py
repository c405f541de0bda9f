"""The cases that reference/make_export_test_gaps_reference.py runs on JAX 0.10.2 and
tests/_jax/_src/test_src_export_gaps.py on jxkernel: what JAX's tests/export_test.py reads of
JAX's private modules (`jax._src.compute_on`, `effects`, `core`, `xla_bridge`) and of the
shape-polymorphic call checks, and what it does over symbolic shapes (`jit(f).lower`,
calling an export with `max_dim` sizes, a library's registered rule). `run(jax)` takes the `jax` module (real or jxkernel) and returns
JSON data: values as text, error types with their messages."""
import importlib
import re

from recorded_errors import error_record   # tests/data: what a case raised, as recorded


def _private(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _compute_on(jax, out):
    import numpy as np
    compute_on = _private(jax, "compute_on")
    device = _private(jax, "core").MemorySpace.Device

    @jax.jit
    @compute_on.compute_on2(compute_type="device_host", out_memory_spaces=device)
    def f(x):
        return x * 2.0 + 1.0

    x = np.float32(3.0)
    out["compute_on2_value"] = float(f(x))
    out["compute_on2_grad"] = float(jax.grad(f)(x))
    out["compute_on2_vmap"] = jax.vmap(f)(np.arange(3, dtype=np.float32)).tolist()
    jaxpr = str(jax.make_jaxpr(f)(x))
    out["compute_on2_jaxpr_has_call"] = bool(re.search(r"compute_on\[", jaxpr))
    out["compute_on2_jaxpr_params"] = [line.strip() for line in jaxpr.splitlines()
                                       if re.match(r"\s*(compute_type|out_memory_spaces|"
                                                   r"compiler_options_json)=", line)]
    text = jax.jit(f).lower(x).as_text()
    # the call that carries the compute type, as its line reads (its operand names aside)
    call = re.search(r"call @compute_on\(%\w+\) (\{mhlo\.frontend_attributes = [^}]*\}\})", text)
    out["compute_on2_call_attributes"] = call and call.group(1)
    out["compute_on2_private_function"] = "func.func private @compute_on(" in text
    out["compute_on2_bad_type"] = error_record(
        lambda: compute_on.compute_on2(compute_type="gpu", out_memory_spaces=device)(f))
    out["compute_on2_not_str"] = error_record(
        lambda: compute_on.compute_on2(compute_type=1, out_memory_spaces=device)(f))

    def in_block(c_type):
        with compute_on.compute_on(c_type):
            return float(jax.jit(lambda y: y * 2.0)(x))
    out["compute_on_block_value"] = in_block("device_host")
    out["compute_on_block_bad"] = error_record(lambda: in_block("host"))


def _effects(jax, out):
    import dataclasses
    effects = _private(jax, "effects")
    core = _private(jax, "core")

    @dataclasses.dataclass(frozen=True)
    class GapsOrderedEffect(effects.Effect):
        pass

    effects.ordered_effects.add_type(GapsOrderedEffect)
    effects.lowerable_effects.add_type(GapsOrderedEffect)
    out["effects_contains"] = [effects.ordered_effects.contains(GapsOrderedEffect()),
                               effects.remat_allowed_effects.contains(GapsOrderedEffect())]
    effect = GapsOrderedEffect()
    p = core.Primitive("export_gaps_effectful")
    p.def_effectful_abstract_eval(lambda aval, *, k: (aval, {effect}))
    jaxpr = jax.make_jaxpr(lambda x: p.bind(x, k=1))(1.0)
    out["effectful_jaxpr_effects"] = sorted(str(e) for e in jaxpr.effects)
    out["effectful_eqn_effects"] = sorted(str(e) for e in jaxpr.jaxpr.eqns[0].effects)
    out["effectful_out_aval"] = str(jaxpr.out_avals[0])


def _names(jax, out):
    import numpy as np
    xb = _private(jax, "xla_bridge")
    core = _private(jax, "core")
    out["canonicalize_platform"] = {p: xb.canonicalize_platform(p)
                                    for p in ("cpu", "cuda", "rocm", "tpu", "CPU")}
    out["canonicalize_platform_gpu"] = error_record(lambda: xb.canonicalize_platform("gpu"))
    a, b = jax.export.symbolic_shape("a, b")
    out["is_constant_shape"] = [core.is_constant_shape((2, 3)), core.is_constant_shape(()),
                                core.is_constant_shape((a, 3))]
    out["max_dim"] = [str(core.max_dim(3, 5)), str(core.max_dim(b - 5, 0)),
                      str(core.max_dim(a, 2)), str(core.max_dim(2, a)),
                      type(core.max_dim(3, 4)).__name__]
    out["tangent_dtypes"] = {np.dtype(d).name: str(core.primal_dtype_to_tangent_dtype(np.dtype(d)))
                             for d in (np.float32, np.int32, np.bool_, np.complex64, np.uint8)}


def _poly_check(jax, out):
    import numpy as np
    spec = jax.export.symbolic_args_specs((np.zeros((3, 4, 13), np.float32),), "3, 4, a + 12")
    exp = jax.export.export(jax.jit(lambda x: x))(*spec)
    out["poly_call_too_small"] = error_record(lambda: exp.call(np.zeros((3, 4, 12), np.float32)))
    # variables solved one at a time, in JAX's order: `a` from 'a', then `b` from '2*b + a'
    # or 'b + a'; each failing check named with the variables obtained before it
    exp2 = jax.export.export(jax.jit(lambda x: x))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("2*b + a, a, b + a"), np.float32))
    for shape in ((2, 2, 6), (3, 2, 6), (8, 2, 6), (10, 2, 6), (6, 2, 4)):
        out[f"solve_{shape}"] = error_record(lambda: exp2.call(np.zeros(shape, np.float32)))
    for spec in ("b + 2*a, a, c^2", "c^2", "a*b, a"):
        out[f"unsolvable_{spec}"] = error_record(lambda: jax.export.export(jax.jit(lambda x: x))(
            jax.ShapeDtypeStruct(jax.export.symbolic_shape(spec), np.float32)))
    exp3 = jax.export.export(jax.jit(lambda x: x.sum(axis=0) * x.shape[0]))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("2*b + a, a"), np.float32))
    out["solved_value"] = exp3.call(np.ones((8, 2), np.float32)).tolist()
    for shape in ((2, 2), (3, 2), (8, 3)):      # b below 1; a remainder; a remainder, then b
        out[f"solve_{shape}"] = error_record(lambda: exp3.call(np.ones(shape, np.float32)))
    core = _private(jax, "core")

    def sized(x):       # a result whose sizes divide: floor division and modulo of b
        b = x.shape[0]
        return jax.numpy.ones(((b + 13) // b, (b + 13) % b, core.max_dim(b - 5, 0), (3 * b) // 2),
                              x.dtype)
    exp4 = jax.export.export(jax.jit(sized))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("b"), np.float32))
    out["sizes_by_division"] = [list(exp4.call(np.zeros(n, np.float32)).shape)
                                for n in (1, 5, 7)]
    m, = jax.export.symbolic_shape("m", constraints=["m >= m1"])
    out["constraint_unknown_variable"] = error_record(lambda: jax.export.export(jax.jit(lambda x: x))(
        jax.ShapeDtypeStruct((m,), np.float32)))
    x = jax.ShapeDtypeStruct(jax.export.symbolic_shape("(w, h1)"), np.float32)
    y = jax.ShapeDtypeStruct(jax.export.symbolic_shape("(w, h2)"), np.float32)

    def concat(x, y):
        return jnp.concatenate([x, y], axis=1)
    jnp = jax.numpy
    for how, call in (("args", lambda e: e(x, y)), ("kwargs", lambda e: e(x, y=y))):
        # (the scopes' ids and creation lines differ between runs: the words around them)
        error = error_record(lambda: call(jax.export.export(jax.jit(concat))))
        error["message"] = re.sub(r"scope \d+ created at [^\n]*", "scope N",
                                  error.get("message", ""))
        out[f"mixed_scopes_{how}"] = error
    for name, key in (("tuple_key", (0, 1)), ("int_key", 1)):
        exp = jax.export.export(jax.jit(lambda d: d[key]))({key: np.float32(1.0)})
        out[f"serialize_dict_{name}"] = error_record(exp.serialize)


def _exported_fields(jax, out):
    """Exported's dataclass fields in order, and whether each is required (JAX builds one
    by keyword; a caller building one positionally needs the same order)."""
    import dataclasses
    out["exported_fields"] = [
        [f.name, f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        for f in dataclasses.fields(jax.export.Exported) if f.init]


def _jit_lower_symbolic(jax, out):
    """`jit(f).lower` over symbolic shapes: main takes the dimension variables first, sorted
    by name, as `jax.global_constant`s, and every argument (an unused one too); its result
    shapes; `.compile()` refused (no values for the variables)."""
    import numpy as np
    jnp = jax.numpy
    a, b = jax.export.symbolic_shape("a, b")
    lowered = jax.jit(lambda x, y: (jnp.sin(x) * x.shape[0], y.sum(0) + y.shape[1])).lower(
        jax.ShapeDtypeStruct((2 * a + 1,), np.float32), jax.ShapeDtypeStruct((b, 3), np.float32))
    out["jit_lower_symbolic_main"] = _main_line(lowered.as_text())
    out["jit_lower_symbolic_out"] = [str(s.shape) for s in lowered.out_info]
    out["jit_lower_symbolic_compile"] = error_record(lowered.compile)
    unused = jax.jit(lambda x, y, z: x * 2).lower(
        jax.ShapeDtypeStruct((b,), np.float32), jax.ShapeDtypeStruct((a,), np.float32), 3.0)
    out["jit_lower_symbolic_unused"] = _main_line(unused.as_text())
    sized = jax.jit(lambda x: jnp.zeros((x.shape[0] + 1,))).lower(
        jax.ShapeDtypeStruct((b, a), np.int32))
    out["jit_lower_symbolic_size"] = [_main_line(sized.as_text()),
                                      str(sized.out_info.shape)]
    one, = jax.export.symbolic_shape("a")     # (the brief's example)
    text = jax.jit(lambda x: jnp.sin(x) * x.shape[0]).lower(
        jax.ShapeDtypeStruct((one,), np.float32)).as_text()
    out["jit_lower_symbolic_sin"] = [_main_line(text),
                                     "stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>"
                                     in text]


def _main_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if "func.func public @main" in line)


def _poly_expressions(jax, out):
    """An export whose result's sizes are expressions of `b` (max(b - 5, 0) among them),
    called from an export over symbolic `a`: its result's shape in `a` (JAX's export_test
    `test_poly_expressions`)."""
    import numpy as np
    core = _private(jax, "core")

    def output_shape(b):
        return (b + b, b - b, b * b, (b + 13) // b, (b + 13) % b, core.max_dim(b - 5, 0),
                core.min_dim(b + 5, 2 * b), core.max_dim(3, b))

    exp = jax.export.export(jax.jit(lambda x: jax.numpy.ones(output_shape(x.shape[0]),
                                                             x.dtype)))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("b"), np.float32))
    exp2 = jax.export.export(jax.jit(exp.call))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("a"), np.float32))
    out["poly_expressions_outer"] = str(exp2.out_avals[0].shape)
    out["poly_expressions_inner"] = str(exp.out_avals[0].shape)
    out["poly_expressions_call"] = [list(exp2.call(np.zeros(n, np.float32)).shape)
                                    for n in (2, 7)]


def _registered_rule_symbolic(jax, out):
    """A library's primitive lowered by its own rule (`mlir.register_lowering`, an MLIR op
    typed from its operands) in an export over symbolic shapes: JAX runs the rule."""
    import numpy as np
    mlir = _private(jax, "interpreters.mlir")       # (as JAX's export_test imports it)
    double_p = importlib.import_module(f"{jax.__name__}.extend.core").Primitive(
        "gaps_symbolic_double")
    double_p.def_abstract_eval(lambda aval: aval)
    mlir.register_lowering(double_p, lambda ctx, a: [mlir.hlo.add(a, a)])
    exp = jax.export.export(jax.jit(lambda x: double_p.bind(x) + 1.0))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("b, 2"), np.float32))
    out["registered_rule_symbolic_out"] = str(exp.out_avals[0].shape)
    out["registered_rule_symbolic_call"] = exp.call(
        np.arange(6, dtype=np.float32).reshape(3, 2)).tolist()
    out["registered_rule_symbolic_add"] = bool(re.search(
        r"stablehlo\.add %\w+, %\w+ : tensor<\?x2xf32>", exp.mlir_module()))


def _approx_top_k(jax, out):
    """approx_max_k/approx_min_k lowered as JAX's: XLA's ApproxTopK custom call with its
    comparator function (the module's text), `stablehlo.dynamic_approx_top_k` under a
    symbolic k (JAX's export_back_compat_test `test_dynamic_approx_top_k`), and the values
    XLA's fallback gives (NaN and ties among them)."""
    import numpy as np
    lax = jax.lax
    out["approx_top_k_text"] = jax.jit(lambda a: lax.approx_max_k(a, k=3)).lower(
        np.zeros((2, 8), np.float32)).as_text()
    x = np.array([[3., np.nan, 1., 5., 5., -np.inf, 2., 0.], [1, 1, 1, 1, 0, 0, -0., 0.]],
                 np.float32)

    def values(res):
        return [type(res).__name__] + [np.asarray(r).tolist() for r in res]
    out["approx_top_k_values"] = [
        values(jax.jit(lambda a: lax.approx_max_k(a, k=3))(x)),
        values(jax.jit(lambda a: lax.approx_min_k(a, k=3))(x)),
        values(jax.jit(lambda a: lax.approx_min_k(a, k=2, reduction_dimension=0,
                                                  recall_target=0.9))(x))]
    # without aggregate_to_topk: as many as XLA's reduction output size (its bins), sorted
    wide = (np.arange(2 * 3000, dtype=np.float32).reshape(2, 3000) * 37) % 1001
    found = jax.jit(lambda a: lax.approx_max_k(a, k=3, aggregate_to_topk=False))(wide)
    out["approx_top_k_no_aggregate"] = [list(found[0].shape), found[0][:, :6].tolist(),
                                        found[1][:, :6].tolist()]
    b, = jax.export.symbolic_shape("b")
    out["approx_top_k_no_aggregate_symbolic"] = error_record(lambda: jax.export.export(
        jax.jit(lambda a: lax.approx_max_k(a, k=1, aggregate_to_topk=False)))(
            jax.ShapeDtypeStruct((b,), np.float32)))
    exp = jax.export.export(jax.jit(lambda a: lax.approx_max_k(a, k=a.shape[0] - 4)))(
        jax.ShapeDtypeStruct((b + 4,), np.float32))
    out["approx_top_k_symbolic"] = [
        sorted(set(re.findall(r"custom_call @([\w.]+)", exp.mlir_module()))),
        values(exp.call(np.arange(10, dtype=np.float32)[::-1] % 7))]


def _constraint_assertions(jax, out):
    """The shape assertions of an export over symbolic shapes with constraints: each of the
    scope's constraints checked in `main` after the variables, in the user's order, with
    JAX's messages (an equality on a term after its normalization rule; one a variable's
    substitution decides, none)."""
    import numpy as np
    for name, spec, constraints in (
            ("ge_mod", "a, b", ("a >= 4", "b <= a + 2", "mod(a, 2) == 0")),
            ("eq_max", "a, b, c", ("c == a + 1", "max(a, b) == 5", "a >= b"))):
        dims = jax.export.symbolic_shape(spec, constraints=constraints)
        exp = jax.export.export(jax.jit(lambda x: x * 2))(
            jax.ShapeDtypeStruct(dims, np.float32))
        text = exp.mlir_module()
        out[f"constraint_assertions_{name}"] = [
            len(re.findall(r"custom_call @shape_assertion\(", text)),
            re.findall(r'error_message = "([^"]*)"', text)]
        # called with shapes each failing a constraint first: JAX's check, in that order
        for shape in ((2, 3, 3), (5, 3, 6), (6, 9, 7), (4, 5, 5)):
            out[f"constraint_call_{name}_{shape}"] = error_record(
                lambda: exp.call(np.zeros(shape[:len(dims)], np.float32)))


# The groups that jax.export a program (jxkernel's NumPy backend refuses it), and the names
# of the cases they make
EXPORTING = (_constraint_assertions, _approx_top_k, _poly_expressions,
             _registered_rule_symbolic, _poly_check)
EXPORTING_CASES = ("constraint_", "solve", "unsolvable_", "serialize_", "sizes_by_division",
                   "mixed_scopes_", "approx_top_k_", "poly_", "registered_rule_symbolic_")


def run(jax, leave_out=()):
    """Every group's cases, but those of the groups in `leave_out` (EXPORTING, where nothing
    exports)."""
    out: dict = {}
    for group in (_constraint_assertions, _approx_top_k, _jit_lower_symbolic, _poly_expressions,
                  _registered_rule_symbolic, _exported_fields, _compute_on, _effects, _names,
                  _poly_check):
        if group not in leave_out:
            group(jax, out)
    return out
