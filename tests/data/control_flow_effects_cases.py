"""A library's own effect in the bodies of cond, switch, scan and while_loop: JAX's
NotImplementedError ("Effects not supported in `cond`: [...]") unless its type is in
`effects.control_flow_allowed_effects`; a Ref's effects and jxkernel's own (callbacks', debug
prints') are allowed. Shared by reference/make_control_flow_effects_reference.py (real JAX
0.10.2) and tests/api/test_control_flow_effects.py (jxkernel).

`run(jax)` returns {case: ["ok"] or [exception class name, message]}.
"""
import importlib


def run(jax) -> dict:
    lax, jnp = jax.lax, jax.numpy
    core = importlib.import_module(f"{jax.__name__}._src.core")
    effects = importlib.import_module(f"{jax.__name__}._src.effects")

    class LibraryEffect(effects.Effect):
        def __repr__(self):
            return "LibraryEffect"

    class AllowedEffect(effects.Effect):
        def __repr__(self):
            return "AllowedEffect"
    effects.control_flow_allowed_effects.add_type(AllowedEffect)

    effect_p = core.Primitive("library_effect")
    effect_p.multiple_results = True
    effect_p.def_effectful_abstract_eval(lambda *avals, effect: (avals, {effect}))

    def outcome(f):
        try:
            f()
            return ["ok"]
        except Exception as e:      # noqa: BLE001  (the error is the fact recorded)
            return [type(e).__name__, str(e)]

    def with_effect(effect):
        def body(x):
            effect_p.bind(effect=effect)
            return x
        return body

    out = {}
    for name, effect in (("library", LibraryEffect()), ("allowed", AllowedEffect())):
        body = with_effect(effect)
        programs = {
            "cond": lambda x: lax.cond(True, body, lambda x: x, x),
            "switch": lambda x: lax.switch(1, [body, lambda x: x], x),
            "scan": lambda x: lax.scan(lambda c, _: (body(c), None), x, None, length=2),
            "while_cond": lambda x: lax.while_loop(lambda c: body(c) < 1.0, lambda c: c, x),
            "while_body": lambda x: lax.while_loop(lambda c: c < 1.0, body, x),
        }
        for where, program in programs.items():
            out[f"{name}/{where}"] = outcome(lambda: jax.make_jaxpr(program)(2.0))
    ref = jax.new_ref(0.0)

    def add(c, x):
        ref[...] += x
        return c, None
    out["ref_in_scan"] = outcome(lambda: lax.scan(add, 0.0, jnp.arange(3.0)))
    out["debug_print_in_cond"] = outcome(lambda: jax.make_jaxpr(lambda x: lax.cond(
        True, lambda x: jax.debug.print("{}", x), lambda x: None, x))(1.0))
    return out
