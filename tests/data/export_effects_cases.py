"""The cases that reference/make_export_effects_reference.py runs on JAX 0.10.2 and
tests/export/test_export_effects.py on jxkernel: a library's effects in jax.export (JAX's
export_test ordered-effects tests, over static shapes): `Exported.ordered_effects` and
`unordered_effects`, the module's functions' signatures (each `main`, `_wrapped_jax_export_main`
and an inner jit's function taking and giving back a `!stablehlo.token` per ordered effect,
`jax.token = true`; a donated argument's `tf.aliasing_output` counting the tokens), a
caller's lowering (`Lowered._lowering.compile_args`' effects, its signatures) and the values
of the calls. `run(jax)` takes the `jax` module (real or jxkernel) and returns JSON data."""
import dataclasses
import importlib
import re

import numpy as np

from recorded_errors import error_record   # tests/data: what a case raised, as recorded


def _private(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _signatures(text: str) -> list:
    """Each function's visibility, name, arguments and results, without locations."""
    text = re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", text)
    return [list(m) for m in re.findall(
        r"func\.func (public|private) @([\w.]+)\((.*?)\) -> (.*) \{$", text, re.M)]


def _setup(jax) -> tuple:
    """Two ordered effects and an unordered one, and a primitive doubling its operand with
    the effect it is bound with (its rule passes the ordered one's token on), as JAX's
    export_test declares them."""
    effects, core = _private(jax, "effects"), _private(jax, "core")
    mlir = importlib.import_module(f"{jax.__name__}._src.interpreters.mlir")

    @dataclasses.dataclass(frozen=True)
    class ExportOrderedEffect1(effects.Effect):
        pass

    @dataclasses.dataclass(frozen=True)
    class ExportOrderedEffect2(effects.Effect):
        pass

    @dataclasses.dataclass(frozen=True)
    class ExportUnorderedEffect1(effects.Effect):
        pass

    class ExportOrderedNoNullary(effects.Effect):
        def __init__(self, _):
            pass

    @dataclasses.dataclass(eq=False)
    class ExportOrderedNoEq(effects.Effect):
        pass

    kinds = {"o1": ExportOrderedEffect1(), "o2": ExportOrderedEffect2(),
             "u1": ExportUnorderedEffect1(), "o_no_nullary": ExportOrderedNoNullary(42),
             "o_no_eq": ExportOrderedNoEq()}
    for name, effect in kinds.items():
        cls = type(effect)
        for registry in (effects.lowerable_effects, effects.control_flow_allowed_effects,
                         effects.custom_derivatives_allowed_effects,
                         effects.remat_allowed_effects):
            registry.add_type(cls)
        if name.startswith("o"):
            effects.ordered_effects.add_type(cls)
    prim = core.Primitive("export_effects_doubling")
    prim.def_effectful_abstract_eval(lambda aval, *, kind: (aval, {kinds[kind]}))

    def lowering(ctx, a, *, kind):
        if kind.startswith("o"):
            token = ctx.tokens_in.get(kinds[kind])
            ctx.set_tokens_out(mlir.TokenSet({kinds[kind]: token}))
        return [mlir.hlo.add(a, a)]
    mlir.register_lowering(prim, lowering)
    return prim


def run(jax) -> dict:
    prim = _setup(jax)
    export = jax.export
    x = np.arange(3, dtype=np.float32)
    out = {}

    def f(x):
        def f_inner(x):
            return prim.bind(x, kind="o2") + prim.bind(x, kind="u1")
        return 10. + jax.jit(f_inner)(x) + prim.bind(x, kind="o1") + prim.bind(x, kind="o2")

    exp = export.export(jax.jit(f))(x)
    out["basic"] = {
        "ordered_effects": sorted(map(str, exp.ordered_effects)),
        "unordered_effects": [str(e) for e in exp.unordered_effects],
        "signatures": _signatures(exp.mlir_module()),
        "call": np.asarray(exp.call(x)).tolist()}
    again = export.deserialize(exp.serialize())
    out["roundtrip"] = {"ordered_effects": sorted(map(str, again.ordered_effects)),
                        "unordered_effects": [str(e) for e in again.unordered_effects],
                        "call": np.asarray(again.call(x)).tolist()}
    for kind in ("o_no_nullary", "o_no_eq"):
        exp_bad = export.export(jax.jit(lambda x: prim.bind(x, kind=kind)))(x)
        found = error_record(exp_bad.serialize)
        if "message" in found:        # (an object's repr names its address)
            found["message"] = re.sub(r" at 0x[0-9a-f]+", "", found["message"])
        out[f"serialize_{kind}"] = found

    def f_outer(x):
        return prim.bind(x, kind="o2") + prim.bind(x, kind="u1") + exp.call(x)

    lowered = jax.jit(f_outer).lower(x)
    args = lowered._lowering.compile_args
    out["caller"] = {
        "ordered_effects": sorted(str(e) for e in args["ordered_effects"]),
        "unordered_effects": sorted(str(e) for e in args["unordered_effects"]),
        "main": [s for s in _signatures(lowered.as_text()) if s[1] == "main"],
        "call": np.asarray(jax.jit(f_outer)(x)).tolist()}

    donating = jax.jit(lambda x: prim.bind(x, kind="o1"), donate_argnums=(0,))
    out["donation"] = _signatures(export.export(donating)(x).mlir_module())

    def g(x):
        return 10. + prim.bind(x, kind="o1") + jax.lax.platform_dependent(
            tpu=lambda: prim.bind(np.float32(3.), kind="o1"),
            default=lambda: prim.bind(np.float32(2.), kind="o1"))
    exp = export.export(jax.jit(g), platforms=("cpu", "tpu"))(x)
    out["multi_platform"] = {"signatures": _signatures(exp.mlir_module()),
                             "call": np.asarray(exp.call(x)).tolist()}
    return out
