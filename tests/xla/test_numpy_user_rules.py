"""A library's primitive whose lowering rule emits only elementwise StableHLO operations, or
none, runs on the NumPy backend (xla/numpy_user_rules.py): JAX's jaxpr_effects_test marks
effects with a primitive whose rule passes the ordered effect's tokens on, api_test's returns
an operand, lax_control_flow_test's emits `hlo.sine` (on the CPU only), and JAX's primitives
guide writes one with `hlo.AddOp`/`hlo.MulOp`. The NumPy backend refused them all ("its NumPy
evaluation rule is missing", or "its def_impl compiles it again"), where XLA runs them. Each
case's answer is JAX 0.10.2's (the test files named, passing on its CPU)."""
from functools import partial

import numpy as np
import pytest
from numerics import assert_allclose_ulp      # tests/support

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel._jax._src import dispatch, effects
from jxkernel._jax._src.interpreters.mlir import TokenSet
from jxkernel.core.config import config
from jxkernel.core.primitive import lowering_rules
from jxkernel.extend.core import Primitive
from jxkernel.interpreters import mlir


class _Marked(effects.Effect):
    def __init__(self, name):
        self.name = name

    __repr__ = lambda self: self.name


class _Ordered(_Marked):
    pass


class _Unlowerable(effects.Effect):
    pass


effects.lowerable_effects.add_type(_Marked)
effects.ordered_effects.add_type(_Ordered)
effects.control_flow_allowed_effects.add_type(_Marked)
ORDERED, UNORDERED = _Ordered("ordered_mine"), _Marked("unordered_mine")


def _passes_tokens_on(ctx, *, effect):
    ctx.set_tokens_out(ctx.tokens_in)
    return []


@pytest.fixture
def effect_p():
    """jaxpr_effects_test's `effect_p`: an effect's marker, no impl, a lowering that emits
    nothing (its tokens passed on); on the NumPy backend, its rule tables restored after."""
    p = Primitive("effect_mine")
    p.multiple_results = True
    p.def_effectful_abstract_eval(lambda *avals, effect: (avals, {effect}))
    mlir.register_lowering(p, _passes_tokens_on)
    dispatch.runtime_tokens.clear()
    try:
        with config.override("jax_platforms", "numpy"):
            yield p
    finally:
        dispatch.runtime_tokens.clear()
        lowering_rules.pop(p, None)


@pytest.mark.parametrize("effect", [ORDERED, UNORDERED], ids=["ordered", "unordered"])
def test_an_effects_marker_runs_under_jit(effect_p, effect):
    # test_can_lower_and_run_jaxpr_with_{ordered,unordered}_effects
    @jax.jit
    def f(x):
        effect_p.bind(effect=effect)
        return x + 1.0
    assert f(2.0) == 3.0 and f(2.0).device.platform == "numpy"


def test_each_call_gives_the_thread_a_new_runtime_token(effect_p):
    # test_runtime_tokens_should_update_after_running_effectful_function and
    # test_can_lower_multiple_effects: a program with an ordered effect leaves a new token for
    # it; one without that effect leaves its token as it was
    other = _Ordered("other_mine")

    @jax.jit
    def both(x):
        effect_p.bind(effect=ORDERED)
        effect_p.bind(effect=other)
        return x + 1.0

    g = jax.jit(lambda x: (effect_p.bind(effect=ORDERED), x + 1.0)[1])
    tokens = dispatch.runtime_tokens.current_tokens
    assert ORDERED not in tokens
    both(2.0)
    first, first_other = tokens[ORDERED], tokens[other]
    both(2.0)
    assert tokens[ORDERED] is not first and tokens[other] is not first_other
    first_other = tokens[other]
    g(2.0)
    assert tokens[other] is first_other and tokens[ORDERED].block_until_ready() is not None
    jax.effects_barrier()
    assert dispatch.runtime_tokens.current_tokens == {}


@pytest.mark.parametrize("body", ["cond", "scan", "while", "pmap"])
def test_in_control_flow_and_pmap(effect_p, body):
    # ControlFlowEffectsTest's test_allowed_effect_in_{cond,scan,...}, ParallelEffectsTest's
    # test_can_pmap_unordered_effect: the marker in the jaxprs a program holds
    def mark(x):
        effect_p.bind(effect=UNORDERED)
        return x + 1.0
    x = jnp.arange(2.0)
    if body == "cond":
        got = jax.jit(lambda v: lax.cond(True, mark, lambda u: u, v))(x)
    elif body == "scan":
        got = jax.jit(lambda v: lax.scan(lambda c, u: (mark(c), u), v, jnp.arange(3.0))[0])(x)
    elif body == "while":
        got = jax.jit(lambda v: lax.fori_loop(0, 3, lambda i, c: mark(c), v))(x)
    else:
        x = jnp.arange(float(jax.local_device_count()))
        got = jax.pmap(mark)(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(x) + (1.0 if body in
                                                                  ("cond", "pmap") else 3.0))


def test_a_rule_registered_not_inline_runs_as_its_functions_body(effect_p):
    # jaxpr_effects_test's test_nontrivial_lowering_with_ordered_effect_should_consume_token:
    # `register_lowering(..., inline=False)` lowers the rule into a private function each
    # equation calls (`func.call`, the token passed in and back); its body passes the token
    # on, and one of hlo's operations doubles an operand. JAX 0.10.2 on its CPU: 3.0, 6.0
    from jxkernel._jax._src.lib.mlir.dialects import hlo
    mlir.register_lowering(effect_p, _passes_tokens_on, inline=False)
    f = jax.jit(lambda x: (effect_p.bind(effect=ORDERED), x + 1.0)[1])
    assert f(2.0) == 3.0 and ORDERED in dispatch.runtime_tokens.current_tokens
    twice = Primitive("twice_called_mine")
    twice.def_abstract_eval(lambda x: x)
    mlir.register_lowering(twice, lambda ctx, x: [hlo.AddOp(x, x).result], inline=False)
    try:
        assert float(jax.jit(lambda x: twice.bind(x) * 1.0)(3.0)) == 6.0
    finally:
        lowering_rules.pop(twice, None)


def test_a_rule_that_sets_no_tokens_or_others_is_refused_as_lower_refuses_it(effect_p):
    # test_lowering_that_{doesnt_set,sets_wrong}_tokens_should_cause_error: JAX's ValueErrors,
    # from `.lower()` as on XLA
    f = jax.jit(lambda x: (effect_p.bind(effect=ORDERED), x + 1.0)[1])
    mlir.register_lowering(effect_p, lambda ctx, *, effect: [])
    with pytest.raises(ValueError, match=r"^Lowering rule for `effect_mine` needs to set "
                                         r"`tokens_out` because it has effects"):
        f.lower(2.0)

    def wrong(ctx, *, effect):
        ctx.set_tokens_out(TokenSet({"bar": ctx.tokens_in.get(ORDERED)}))
        return []
    mlir.register_lowering(effect_p, wrong)
    with pytest.raises(ValueError, match="^Lowering rule for `effect_mine` returns incorrect "
                                         "set of output token"):
        jax.jit(lambda x: (effect_p.bind(effect=ORDERED), x + 2.0)[1]).lower(2.0)


def test_an_effect_no_lowering_takes_is_refused_in_jaxs_words(effect_p):
    # test_cannot_lower_unlowerable_effect, test_cannot_pmap_unlowerable_effect
    f = jax.jit(lambda x: (effect_p.bind(effect=_Unlowerable()), x + 1.0)[1])
    with pytest.raises(ValueError, match="^Cannot lower jaxpr with effects"):
        f.lower(2.0)
    with pytest.raises(ValueError, match=r"^Cannot lower jaxpr with effects: \{'abc'\}"):
        jax.pmap(lambda x: (effect_p.bind(effect="abc"), x)[1])(jnp.arange(1.0))


def test_a_rule_returning_an_operand_runs_where_its_impl_compiles_it_again():
    # api_test's test_grad_of_token_consuming_primitive: the impl is
    # dispatch.apply_primitive (it compiles the primitive: refused, "its def_impl compiles it
    # again"), the rule returns its first operand, which XLA runs; JAX 0.10.2: vjp does not
    # crash, the primal is the operand
    from jxkernel.interpreters import ad
    p = Primitive("tokentest_mine")
    p.def_impl(partial(dispatch.apply_primitive, p))
    p.def_abstract_eval(lambda x, y: x)
    mlir.register_lowering(p, lambda ctx, x, y: [x])
    ad.defjvp(p, (lambda g, x, token: x), None)
    try:
        with config.override("jax_platforms", "numpy"):
            token, arr = lax.create_token(123), jnp.ones((3, 2))
            res, vjp_fun = jax.vjp(lambda x: p.bind(x, token), arr)
            np.testing.assert_array_equal(np.asarray(res), np.ones((3, 2)))
            assert vjp_fun(arr)[0].shape == (3, 2)
    finally:
        lowering_rules.pop(p, None)


def test_a_rule_of_hlos_elementwise_builders_runs_as_their_operations():
    # JAX's primitives guide's multiply_add, its lowering written with hlo.AddOp/hlo.MulOp
    # and no def_impl: under jit XLA runs those operations, and so does the NumPy backend
    # now, as the lax primitives they lower (mul, add); 2 * 3 + 4 = 10 (JAX 0.10.2)
    from jxkernel._jax._src.lib.mlir.dialects import hlo
    p = Primitive("multiply_add_hlo_mine")
    p.def_abstract_eval(lambda x, y, z: x)
    mlir.register_lowering(p, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result])
    try:
        with config.override("jax_platforms", "numpy"):
            f = jax.jit(p.bind)
            assert float(f(2.0, 3.0, 4.0)) == 10.0
            np.testing.assert_array_equal(
                np.asarray(f(jnp.arange(3.0), jnp.full(3, 2.0), jnp.ones(3))), [1.0, 3.0, 5.0])
            assert [e.primitive.name for e in f.trace(2.0, 3.0, 4.0).jaxpr.eqns] == \
                ["multiply_add_hlo_mine"]           # (the user's jaxpr keeps the primitive)
    finally:
        lowering_rules.pop(p, None)


def test_a_platforms_rule_emitting_sine_runs_in_platform_dependent():
    # lax_control_flow_test's test_platform_dependent_with_primitive_with_lowering_error: a
    # rule per platform (the other's raises), `mlir.hlo.sine`, an impl that compiles the
    # primitive; eagerly, under jit, cond, scan and vmap: sin, as under JAX 0.10.2's CPU
    from jxkernel._jax._src.interpreters import batching
    from jxkernel._jax._src.lib.mlir.dialects import hlo
    p = Primitive("lowering_error_mine")
    p.def_abstract_eval(lambda x_aval, **_: x_aval)

    def lowering(platform, ctx, x, *, only_on):
        if platform != only_on:
            raise ValueError(f"lowered for {platform}")
        return [hlo.sine(x)]
    batching.primitive_batchers[p] = lambda xs, dims, **params: (p.bind(*xs, **params),
                                                                dims[0])
    for platform in ("cpu", "tpu"):
        mlir.register_lowering(p, partial(lowering, platform), platform=platform)
    p.def_impl(partial(dispatch.apply_primitive, p))

    def f(x):
        return lax.platform_dependent(x, cpu=lambda x: p.bind(x, only_on="cpu"),
                                      tpu=lambda x: p.bind(x, only_on="tpu"))
    try:
        with config.override("jax_platforms", "numpy"):
            # (float32 sin: the NumPy rule of lax.sin against NumPy's, within 2 ulps)
            sin1 = np.sin(np.float32(1.0))
            for got in (f(1.0), jax.jit(f)(1.0), lax.cond(True, f, lambda x: x, 1.0)):
                assert_allclose_ulp(got, sin1, 2)
            assert float(lax.cond(False, f, lambda x: x, 1.0)) == 1.0
            xs = np.arange(8.0, dtype=np.float32)
            assert_allclose_ulp(lax.scan(lambda c, x: (c, f(x)), 0.0, xs)[1], np.sin(xs), 2)
            assert_allclose_ulp(jax.vmap(f)(xs), np.sin(xs), 2)
    finally:
        lowering_rules.pop(p, None)
        batching.primitive_batchers.pop(p, None)


def test_a_rule_that_emits_other_operations_is_still_refused_without_an_impl():
    # the NumPy backend runs the builders' elementwise operations and forwardings; a rule
    # calling a kernel (a custom_call) stays XLA's, refused on the NumPy backend as before
    from jxkernel._jax._src.lib.mlir.dialects import hlo
    p = Primitive("custom_call_mine")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: hlo.CustomCallOp(
        [x.type], [x], call_target_name="my_kernel").results)
    try:
        with config.override("jax_platforms", "numpy"):
            with pytest.raises(NotImplementedError, match="its NumPy evaluation rule is missing"):
                jax.jit(p.bind)(1.0)
    finally:
        lowering_rules.pop(p, None)
