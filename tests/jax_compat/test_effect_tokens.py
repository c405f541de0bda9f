"""A library's own effects in a lowering, as JAX 0.10.2's jaxpr_effects_test declares them: an
ordered effect's rule reads `ctx.tokens_in` and gives `ctx.set_tokens_out(...)` (mlir.TokenSet),
an unordered one's gets no tokens; JAX's errors for a rule that sets none or the wrong ones and
for an effect not in `effects.lowerable_effects`. (The messages are JAX's, from that file.)"""
import pytest

import jxkernel
from jxkernel import lax
from jxkernel._jax._src import effects
from jxkernel._jax._src.interpreters import mlir
from jxkernel.extend.core import Primitive


class _Basic(effects.Effect):
    def __init__(self, name):
        self.name = name

    __repr__ = lambda self: self.name


class _Ordered(_Basic):
    pass


class _Unlowerable(effects.Effect):
    pass


effects.lowerable_effects.add_type(_Basic)
effects.ordered_effects.add_type(_Ordered)
effects.control_flow_allowed_effects.add_type(_Basic)
_foo, _foo2, _bar = _Ordered("foo"), _Ordered("foo2"), _Basic("bar")


@pytest.fixture
def effect_p():
    p = Primitive("effect")
    p.multiple_results = True
    p.def_effectful_abstract_eval(lambda *avals, effect: (avals, {effect}))
    return p


def _seen_rule(seen):
    def rule(ctx, *, effect):
        seen.append(sorted(map(repr, ctx.tokens_in.effects())))
        ctx.set_tokens_out(ctx.tokens_in)
        return []
    return rule


def test_an_ordered_effects_rule_gets_a_token_and_an_unordered_ones_none(effect_p):
    seen = []
    mlir.register_lowering(effect_p, _seen_rule(seen))

    def f(x):
        effect_p.bind(effect=_foo)
        effect_p.bind(effect=_bar)
        effect_p.bind(effect=_foo2)
        return x + 1.0
    assert float(jxkernel.jit(f)(2.0)) == 3.0
    assert seen == [["foo"], [], ["foo2"]]


@pytest.mark.parametrize("loop", ["cond", "while", "scan"])
def test_ordered_effects_in_control_flow_are_given_tokens(effect_p, loop):
    seen = []
    mlir.register_lowering(effect_p, _seen_rule(seen))

    def body(x):
        effect_p.bind(effect=_foo)
        return x + 1.0

    def f(x):
        if loop == "cond":
            return lax.cond(x > 0, body, lambda y: y - 1.0, x)
        if loop == "while":
            return lax.while_loop(lambda y: y < 3.0, body, x)
        return lax.scan(lambda c, _: (body(c), None), x, None, length=2)[0]
    assert float(jxkernel.jit(f)(1.0)) == (2.0 if loop == "cond" else 3.0)
    assert seen and all(s == ["foo"] for s in seen)


def test_a_rule_that_sets_no_tokens_or_wrong_ones_is_jaxs_value_error(effect_p):
    mlir.register_lowering(effect_p, lambda ctx, *, effect: [])
    f = jxkernel.jit(lambda x: effect_p.bind(effect=_foo) or x)
    with pytest.raises(ValueError, match="Lowering rule for `effect` needs to set `tokens_out`"):
        f.lower(2.0)

    def wrong(ctx, *, effect):
        ctx.set_tokens_out(mlir.TokenSet({"bar": ctx.tokens_in.get(_foo)}))
        return []
    mlir.register_lowering(effect_p, wrong)
    with pytest.raises(ValueError, match="Lowering rule for `effect` returns incorrect set of "
                                         "output token."):
        jxkernel.jit(lambda x: effect_p.bind(effect=_foo) or x).lower(2.0)


def test_an_effect_not_lowerable_is_refused_at_lowering(effect_p):
    mlir.register_lowering(effect_p, _seen_rule([]))
    f = jxkernel.jit(lambda x: effect_p.bind(effect=_Unlowerable()) or x + 1.0)
    with pytest.raises(ValueError, match="Cannot lower jaxpr with effects"):
        f.lower(2.0)


def test_token_set_is_jaxs_immutable_mapping():
    ts = mlir.TokenSet({_foo: "t0", _foo2: "t1", _bar: "t2"})
    assert len(ts) == 3 and len(mlir.TokenSet()) == 0 and ts.get(_foo2) == "t1"
    with pytest.raises(KeyError):
        ts.get(_Ordered("other"))
    assert ts.effects() == {_foo, _foo2, _bar}
    assert ts.subset([_bar, _foo]).items() == ((_bar, "t2"), (_foo, "t0"))
    assert ts.update_tokens(mlir.TokenSet()) is ts
    assert ts.update_tokens(mlir.TokenSet({_foo2: "new"})).items() == \
        ((_foo, "t0"), (_foo2, "new"), (_bar, "t2"))


def _logging_rule(log):
    """A lowering rule that calls back with its operand on the effect's token (JAX's
    emit_python_callback) and gives back the token the call returns."""
    from jxkernel.interpreters.mlir import emit_python_callback

    def rule(ctx, x, *, effect):
        outs, token, _ = emit_python_callback(
            ctx, lambda v: log.append(float(v)) or (), ctx.tokens_in.get(effect), [x],
            list(ctx.avals_in), [], has_side_effect=True, returns_token=True)
        ctx.set_tokens_out(ctx.tokens_in.update_tokens(mlir.TokenSet({effect: token})))
        return outs
    return rule


# (the NumPy backend runs a library's lowering rule only where it emits hlo's elementwise
# operations or none, xla/numpy_user_rules.py: a custom call, as emit_python_callback's, is
# XLA's runtime, and the primitive is refused there saying so)
@pytest.mark.xla_only("XLA compiler")
def test_a_rule_passes_its_token_to_emit_python_callback_and_gives_back_the_next(effect_p):
    log = []
    rule = _logging_rule(log)
    mlir.register_lowering(effect_p, rule)
    p = Primitive("logged")
    p.multiple_results = True
    p.def_effectful_abstract_eval(lambda x, *, effect: ([], {effect}))
    mlir.register_lowering(p, rule)
    f = jxkernel.jit(lambda x: p.bind(x, effect=_foo) or p.bind(x + 1.0, effect=_foo) or x)
    f(2.0)
    jxkernel.effects_barrier()
    assert log == [2.0, 3.0]


def test_a_librarys_ordered_effect_over_several_devices_and_a_strings_effect_are_refused(
        effect_p):
    from jxkernel.xla.lowering import check_one_device_effects

    class TwoDevices:                   # (the check reads the mesh's size and text only)
        size = 2
    jaxpr = jxkernel.make_jaxpr(lambda x: effect_p.bind(effect=_foo) or x)(1.0)
    with pytest.raises(ValueError, match=r"The following ordered effects are not supported for "
                                         r"more than 1 device: \[foo\]"):
        check_one_device_effects(jaxpr.jaxpr, TwoDevices())
    check_one_device_effects(jxkernel.make_jaxpr(lambda x: effect_p.bind(effect=_bar) or x)(
        1.0).jaxpr, TwoDevices())
    mlir.register_lowering(effect_p, _seen_rule([]))
    with pytest.raises(ValueError, match="Cannot lower jaxpr with effects: {'abc'}"):
        jxkernel.jit(lambda x: effect_p.bind(effect="abc") or x)(1.0)


def test_a_jaxprs_declared_effects_must_hold_its_equations(effect_p):
    from jxkernel.core import JaxprTypeError, check_jaxpr

    def f(x):
        effect_p.bind(effect=_foo)
        effect_p.bind(effect=_bar)
        return x + 1.0
    jaxpr = jxkernel.make_jaxpr(f)(2.0).jaxpr
    check_jaxpr(jaxpr.replace(effects={_foo, _bar}))
    narrowed = jaxpr.replace(effects={_foo})
    assert narrowed.effects == {_foo} and jaxpr.effects == {_foo, _bar}
    with pytest.raises(JaxprTypeError, match="Equation effect not present in jaxpr effects."):
        check_jaxpr(narrowed)
    with pytest.raises(ValueError, match="Unknown keyword arguments"):
        jaxpr.replace(bogus=1)


def test_a_rule_registered_not_inline_is_a_private_function_each_equation_calls(effect_p):
    mlir.register_lowering(effect_p, _seen_rule([]), inline=False)

    def f(x):
        effect_p.bind(effect=_bar)
        effect_p.bind(effect=_bar)
        effect_p.bind(effect=_foo)
        return x + 1.0
    text = jxkernel.jit(f).lower(1.0).as_text()
    assert text.count("call @effect() : () -> ()") == 2
    assert text.count("call @effect_0(%arg0) : (!stablehlo.token) -> !stablehlo.token") == 1
    assert "func.func private @effect() {" in text
    assert "func.func private @effect_0(%arg0: !stablehlo.token) -> !stablehlo.token" in text
    assert float(jxkernel.jit(f)(1.0)) == 2.0


def test_token_set_create_makes_a_token_per_effect_under_mlirs_bindings(effect_p):
    # (JAX 0.10.2's TokenSetTest.test_create: a token per effect, each an ir.Value)
    with mlir.make_ir_context() as ctx, mlir.ir.Location.unknown(ctx):
        module = mlir.ir.Module.create()
        with mlir.ir.InsertionPoint(module.body):
            ts = mlir.TokenSet.create([_foo, _foo2])
            assert [e for e, _ in ts.items()] == [_foo, _foo2]
            assert all(isinstance(t, mlir.ir.Value) for _, t in ts.items())
    assert str(module).count("stablehlo.create_token") == 2

    seen = []

    def rule(ctx, *, effect):     # in a rule jxkernel lowers: tokens of that block
        made = mlir.TokenSet.create([effect])
        seen.append(len(made))
        ctx.set_tokens_out(ctx.tokens_in)
        return []
    mlir.register_lowering(effect_p, rule)
    assert float(jxkernel.jit(lambda x: (effect_p.bind(effect=_foo), x + 1.0)[1])(1.0)) == 2.0
    assert seen == [1]


def test_main_takes_and_returns_a_token_per_ordered_effect_passed_between_programs(effect_p):
    # (JAX 0.10.2's test_lowered_jaxpr_with_*ordered_effects_takes_*, test_can_lower_multiple_
    # effects, test_runtime_tokens_should_update_after_running_effectful_function)
    from jxkernel._jax._src import dispatch
    mlir.register_lowering(effect_p, _seen_rule([]))
    dispatch.runtime_tokens.clear()

    def f(x):
        effect_p.bind(effect=_foo)
        effect_p.bind(effect=_foo2)
        effect_p.bind(effect=_bar)
        return x + 1.0

    def g(x):
        effect_p.bind(effect=_foo)
        return x + 1.0
    f, g = jxkernel.jit(f), jxkernel.jit(g)
    main = f.lower(1.0).as_text().splitlines()[1]
    token = "!stablehlo.token {jax.token = true}"
    assert main.count(token) == 4 and "(%arg0: " + token + ", %arg1: " + token in main
    assert "-> (" + token + ", " + token + ", tensor<f32>" in main
    unordered = jxkernel.jit(lambda x: (effect_p.bind(effect=_bar), x + 1.0)[1])
    assert "token" not in unordered.lower(1.0).as_text().splitlines()[1]

    tokens = dispatch.runtime_tokens.current_tokens
    assert _foo not in tokens
    assert float(f(2.0)) == 3.0
    foo, foo2 = tokens[_foo], tokens[_foo2]
    f(2.0)
    assert tokens[_foo] is not foo and tokens[_foo2] is not foo2
    foo, foo2 = tokens[_foo], tokens[_foo2]
    assert float(g(2.0)) == 3.0
    assert tokens[_foo] is not foo and tokens[_foo2] is foo2
    jxkernel.effects_barrier()                  # (waits for them, then drops them)
    assert dispatch.runtime_tokens.current_tokens == {}


@pytest.mark.xla_only("XLA text")     # the lowered StableHLO, then emit_python_callback's calls
def test_an_ordered_call_takes_mains_token_and_programs_stay_in_order(effect_p):
    # (JAX 0.10.2's test_nontrivial_lowering_with_ordered_effect_should_consume_token: the
    # call is main's first operation, on main's token)
    mlir.register_lowering(effect_p, _seen_rule([]), inline=False)
    text = jxkernel.jit(lambda x: (effect_p.bind(effect=_foo), x + 1.0)[1]).lower(1.0).as_text()
    first = text.split("{\n", 2)[2].splitlines()[0]
    assert "call @effect(%arg0)" in first and "after_all" not in text

    log = []
    rule = _logging_rule(log)
    p = Primitive("logged_between")
    p.multiple_results = True
    p.def_effectful_abstract_eval(lambda x, *, effect: ([], {effect}))
    mlir.register_lowering(p, rule)
    f = jxkernel.jit(lambda x: (p.bind(jnp_log_sum(x), effect=_foo), x)[1])
    g = jxkernel.jit(lambda x: (p.bind(x, effect=_foo), x)[1])
    x = jxkernel.numpy.ones((50, 50))
    for _ in range(3):
        f(x)
        g(3.0)
    jxkernel.effects_barrier()
    assert log == [2500.0, 3.0] * 3


def jnp_log_sum(x):
    return (x @ x).sum() / 50.0
