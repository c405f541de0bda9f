"""The cases that reference/make_export_test_gaps_reference.py runs on JAX 0.10.2 and
tests/_jax/_src/test_src_export_gaps.py on jxkernel: what JAX's tests/export_test.py reads of
JAX's private modules (`jax._src.compute_on`, `effects`, `core`, `xla_bridge`) and of the
shape-polymorphic call checks. `run(jax)` takes the `jax` module (real or jxkernel) and returns
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


def run(jax):
    out: dict = {}
    _exported_fields(jax, out)
    _compute_on(jax, out)
    _effects(jax, out)
    _names(jax, out)
    _poly_check(jax, out)
    return out
