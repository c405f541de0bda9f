"""Effects on a jaxpr's inputs (JaxprInputEffect: a Ref's reads and writes, a library's own)
through jit, cond, scan, while_loop, DCE and `partial_eval_jaxpr_custom`: each effect of
`jaxpr.effects` names the input's variable (JAX 0.10.2's `InputEffect(var)`), here recorded as
its position among the jaxpr's constvars and invars. Shared by
reference/make_input_effects_reference.py (real JAX 0.10.2) and
tests/core/test_input_effects.py (jxkernel).

`run(jax)` returns {case: sorted [effect class name, input position (None: not an input)]}.
"""
import importlib

import numpy as np


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    core = importlib.import_module(f"{jax.__name__}._src.core")
    effects = importlib.import_module(f"{jax.__name__}._src.effects")
    pe = importlib.import_module(f"{jax.__name__}._src.interpreters.partial_eval")

    class InputEffect(effects.JaxprInputEffect):
        pass
    effects.control_flow_allowed_effects.add_type(InputEffect)

    p = core.Primitive("input_effect_case")
    p.multiple_results = True
    p.def_effectful_abstract_eval(lambda *avals, index: ([], {InputEffect(index)}))

    def effect(*xs, index):
        return p.bind(*xs, index=index)

    def where(jaxpr):
        jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
        inputs = [*jaxpr.constvars, *jaxpr.invars]
        out = []
        for e in jaxpr.effects:
            at = next((i for i, v in enumerate(inputs) if v is e.input), None)
            out.append([type(e).__name__, at])
        return sorted(out, key=repr)

    out = {}
    mk = jax.make_jaxpr
    out["simple"] = where(mk(lambda x, y: effect(x, y, index=0))(0, 1))
    out["by_index"] = where(mk(lambda x, y: effect(y, x, index=0))(0, 1))
    out["literal"] = where(mk(lambda x: effect(x, 3, index=1))(0))
    out["jit"] = where(mk(jax.jit(lambda x, y: effect(y, x, index=1)))(0, 1))
    out["nested_jit"] = where(mk(jax.jit(
        lambda x, y: jax.jit(lambda a, b: effect(b, a, index=1))(x, y)))(0, 1))
    c = np.array([0, 1])
    out["jit_const"] = where(mk(jax.jit(lambda y: effect(c, y, index=0)))(0))
    jaxpr = mk(jax.jit(lambda _, y: effect(y, index=0)))(0, 1)
    out["jit_dce"] = where(pe.dce_jaxpr(jaxpr.jaxpr, [], instantiate=[False, False])[0])

    def cond_f(index):
        def f(x, w):
            def yes(x, w):
                effect(w, x, index=index)
                return x
            return lax.cond(x > 0, yes, lambda x, w: x, x, w)
        return f
    out["cond0"] = where(mk(cond_f(0))(1, 2))
    out["cond1"] = where(mk(cond_f(1))(1, 2))

    def scan_f(index):
        def f(xs, z, w):
            def body(z, x):
                effect(x, z, w, index=index)
                return z, x
            return lax.scan(body, z, xs)
        return f
    for i in range(3):
        out[f"scan{i}"] = where(mk(scan_f(i))(jnp.arange(4), 0, 5))

    def while_f(index):
        def f(x, w):
            def body(y):
                effect(x, y, w, index=index)
                return y + 1
            return lax.while_loop(lambda y: y < w, body, x)
        return f
    for i in range(3):
        out[f"while{i}"] = where(mk(while_f(i))(0, 3))

    jaxpr = mk(lambda _, y: effect(y, index=0))(0, 1).jaxpr
    for name, unknowns in (("pe_custom_unknown", [False, True]),
                           ("pe_custom_known", [True, False])):
        known, staged, out_unk, out_inst, n_res = pe.partial_eval_jaxpr_custom(
            jaxpr, unknowns, in_inst=unknowns, ensure_out_unknowns=[], ensure_out_inst=[],
            saveable=lambda *_, **__: True)
        out[name] = {"known": where(known), "staged": where(staged),
                     "invars": [len(known.invars), len(staged.invars)], "n_res": n_res}

    def ref_f(x, r, s):
        s[...] = x
        return lax.cond(x > 0, lambda: r[...], lambda: x)
    ref = core.new_ref(np.float32(0.0))
    ref2 = core.new_ref(np.float32(1.0))
    out["refs"] = where(mk(ref_f)(np.float32(1.0), ref, ref2))
    return out
