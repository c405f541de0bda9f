"""A library's own effect in the bodies of cond, switch, scan and while_loop: JAX's
NotImplementedError ("Effects not supported in `cond`: [...]") unless its type is in
`effects.control_flow_allowed_effects`; a Ref's effects and jxkernel's own (callbacks', debug
prints') are allowed. The same in custom_jvp and custom_vjp functions (under
jax_enable_checks) and in a checkpointed function differentiated. Shared by reference/make_control_flow_effects_reference.py (real JAX
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
    out.update(_custom_and_remat_cases(jax, core, effects, effect_p, LibraryEffect, outcome))
    return out


def _custom_and_remat_cases(jax, core, effects, effect_p, LibraryEffect, outcome) -> dict:
    """custom_jvp and custom_vjp functions with a library's effect (refused only under
    jax_enable_checks: JAX's refusal is its jaxpr type check's), and a checkpointed one
    partially evaluated (refused unless in remat_allowed_effects)."""
    ad = __import__(f"{jax.__name__}._src.interpreters.ad", fromlist=["ad"])
    ad.primitive_jvps[effect_p] = lambda primals, tangents, effect: (
        effect_p.bind(*primals, effect=effect), tangents)

    class RematEffect(effects.Effect):
        def __repr__(self):
            return "RematEffect"
    effects.remat_allowed_effects.add_type(RematEffect)
    out = {}

    for checks in (False, True):
        # new functions for each: a trace is cached by the function, not by the option
        @jax.custom_jvp
        def f(x):
            effect_p.bind(effect=LibraryEffect())
            return x
        f.defjvp(lambda x, t: (x, t))

        @jax.custom_vjp
        def g(x):
            effect_p.bind(effect=LibraryEffect())
            return x
        g.defvjp(lambda x: (x, None), lambda r, t: (t,))
        jax.config.update("jax_enable_checks", checks)
        try:
            out[f"custom_jvp/checks={checks}"] = outcome(lambda: jax.make_jaxpr(f)(2.0))
            out[f"custom_vjp/checks={checks}"] = outcome(lambda: jax.make_jaxpr(g)(2.0))
        finally:
            jax.config.update("jax_enable_checks", False)
    for name, effect in (("library", LibraryEffect()), ("allowed", RematEffect())):
        def h(x, effect=effect):
            x, = effect_p.bind(x, effect=effect)
            return x
        h = jax.checkpoint(h)
        out[f"remat_{name}/make_jaxpr"] = outcome(lambda: jax.make_jaxpr(h)(2.0))
        out[f"remat_{name}/linearized"] = outcome(lambda: jax.make_jaxpr(
            lambda x: jax.linearize(h, x)[1](x))(2.0))
    return out
