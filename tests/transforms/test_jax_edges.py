"""JAX programs at the edges of the transformations behave as in JAX 0.10.2 (issue 17): jit's
cache keyed on the function, zero-trip loops, custom_jvp/custom_vjp on concrete values, the
vjp pullback as a pytree, and the exception classes and tracer reprs user code sees."""
import functools
import json
import os

import numpy as np
import pytest
from jax_edges_cases import mistakes, tracer_prints
from numerics import ELEMENTWISE, assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import compile_log, lax
import locations  # tests/support: the repository's folders


def _traced_and_compiled(fun):
    """(how often fun's Python ran, how many compile events name it)."""
    return fun.calls, sum(1 for e in compile_log.compile_events() if e.function == fun.__name__)


# ================================================================== jit's cache
def test_jit_made_anew_each_call_hits_the_cache_of_its_function():
    def scaled_by_three_plus_31(x, n=1):
        scaled_by_three_plus_31.calls += 1
        return x * 3 * n + 31
    scaled_by_three_plus_31.calls = 0
    x = jnp.arange(3.0)

    def helper(x):                    # a jit written inside a helper, called in a loop
        return jax.jit(scaled_by_three_plus_31)(x)
    outs = [helper(x) for _ in range(20)]
    assert _traced_and_compiled(scaled_by_three_plus_31) == (1, 1)
    np.testing.assert_array_equal(np.asarray(outs[-1]), [31, 34, 37])
    # static arguments are part of the key; other jit options make a cache of their own
    static = [jax.jit(scaled_by_three_plus_31, static_argnums=1)(x, n) for n in (2, 2, 2, 3)]
    assert _traced_and_compiled(scaled_by_three_plus_31) == (3, 3)
    np.testing.assert_array_equal(np.asarray(static[-1]), [31, 40, 49])
    # under grad, the trace made by the top-level call is found again, as in JAX
    g = [jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(x) for _ in range(3)]
    assert scaled_by_three_plus_31.calls == 3
    jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(1.0)     # a new signature
    jax.grad(lambda v: jax.jit(scaled_by_three_plus_31)(v).sum())(2.0)
    assert scaled_by_three_plus_31.calls == 4
    jax.jit(scaled_by_three_plus_31)(2.0)      # and a top-level call finds grad's trace
    assert scaled_by_three_plus_31.calls == 4
    np.testing.assert_array_equal(np.asarray(g[-1]), [3, 3, 3])
    # a function made anew (a lambda in a loop) is a new key, as in JAX
    for _ in range(2):
        jax.jit(lambda v: v + 31.5)(x)
    fresh = [e for e in compile_log.compile_events() if e.function == "<lambda>"][-2:]
    assert [c.kind for c in fresh[-1].changes] == ["fresh_jit"]


# ================================================================== loops with zero trips
def _kinds(tree):
    return [(type(leaf).__name__, str(leaf.dtype), leaf.weak_type)
            for leaf in jax.tree_util.tree_leaves(tree)]


def test_zero_trip_loops_return_arrays_of_the_carry_type():
    body = lambda i, c: c + 1                                          # noqa: E731
    assert _kinds(lax.fori_loop(0, 0, body, 0)) == [("ArrayImpl", "int32", True)]
    assert _kinds(lax.fori_loop(3, 1, body, 1.0)) == [("ArrayImpl", "float32", True)]
    assert _kinds(lax.fori_loop(0, 0, body, np.float32(2))) == [("ArrayImpl", "float32", False)]
    assert _kinds(lax.fori_loop(0, 0, body, 0, unroll=True)) == [("ArrayImpl", "int32", True)]
    assert _kinds(jax.jit(lambda n: lax.fori_loop(0, n, body, 0))(0)) == [("ArrayImpl", "int32", True)]
    assert _kinds(lax.while_loop(lambda c: c < 0, lambda c: c + 1, 0)) == [("ArrayImpl", "int32", True)]
    carry, ys = lax.scan(lambda c, _: (c + 1, c), 0, None, length=0)
    assert _kinds((carry, ys)) == [("ArrayImpl", "int32", True), ("ArrayImpl", "int32", True)]
    assert ys.shape == (0,) and int(carry) == 0 and int(lax.fori_loop(0, 0, body, 5)) == 5
    # a carry the body hands back unchanged is the value passed in (JAX forwards it)
    for trips in (0, 3):
        count, kept = lax.fori_loop(0, trips, lambda i, c: (c[0] + 1, c[1]), (0, 2.5))
        assert type(kept) is float and kept == 2.5 and int(count) == trips
    i, kept = lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1]), (0, 2.5))
    assert type(kept) is float and int(i) == 2
    # a y made from a weakly typed carry stays weak, and a carry that only turns strong is
    # not traced again (JAX retraces for a new dtype, not for a weak type)
    seen = []
    carry, ys = lax.scan(lambda c, x: (seen.append(1) or c + x, c), 0, jnp.arange(3))
    assert (carry.weak_type, ys.weak_type, len(seen)) == (False, True, 1)
    # the index of Python-int bounds is weakly typed: c + i keeps the carry's uint8
    for upper in (3, jnp.int32(3)):
        total = lax.fori_loop(0, upper, lambda i, c: c + i, jnp.uint8(0))
        assert (total.dtype, int(total)) == (np.uint8, 3)


# ================================================================== custom rules, concretely
@jax.custom_jvp
def soft_abs(x):
    if x > 0:                                   # Python control flow on the value
        return jnp.sin(x)
    return -x


@soft_abs.defjvp
def _soft_abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return soft_abs(x), (jnp.cos(x) if x > 0 else -1.0) * t


@jax.custom_vjp
def clipped(x):
    return jnp.sin(x) if x > 0 else x


def _clipped_fwd(x):
    return clipped(x), x


def _clipped_bwd(x, ct):
    return (jnp.cos(x) * ct if x > 0 else ct,)


clipped.defvjp(_clipped_fwd, _clipped_bwd)


def test_custom_rules_run_their_python_on_concrete_values_outside_jit():
    cos1 = np.cos(np.float32(1))
    assert_allclose_ulp(jax.grad(soft_abs)(1.0), cos1, ELEMENTWISE)   # cos: a few ulps
    assert float(jax.grad(soft_abs)(-2.0)) == -1.0
    primal, tangent = jax.jvp(soft_abs, (1.0,), (2.0,))
    assert_allclose_ulp(tangent, 2 * cos1, ELEMENTWISE)
    assert_allclose_ulp(jax.grad(jax.grad(soft_abs))(1.0), -np.sin(np.float32(1)), ELEMENTWISE)
    assert_allclose_ulp(jax.grad(clipped)(1.0), cos1, ELEMENTWISE)
    assert float(jax.grad(clipped)(-1.0)) == 1.0
    assert_allclose_ulp(jax.vjp(clipped, 1.0)[1](1.0)[0], cos1, ELEMENTWISE)
    # under jit or vmap the values are abstract, as in JAX
    for transform in (jax.jit(jax.grad(soft_abs)), jax.vmap(soft_abs), jax.vmap(clipped)):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            transform(jnp.ones(2) if transform is not jax.jit else 1.0)


def test_a_custom_rule_closing_over_a_differentiated_value_raises_as_jax():
    def outer(y):
        @jax.custom_jvp
        def f(x):
            return x * y
        f.defjvp(lambda p, t: (f(p[0]), t[0] * y))
        return f(2.0)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.grad(outer)(3.0)


# ================================================================== vjp's pullback
def test_the_vjp_pullback_is_a_pytree_of_its_residuals_and_passes_through_jit():
    x = jnp.arange(1.0, 4.0)
    y, f_vjp = jax.vjp(lambda v: jnp.sin(v) * v, x)
    leaves = jax.tree_util.tree_leaves(f_vjp)
    assert leaves and all(isinstance(leaf, jax.Array) for leaf in leaves)
    through_jit = jax.jit(lambda f, ct: f(ct))(f_vjp, jnp.ones(3))
    direct = f_vjp(jnp.ones(3))
    assert_allclose_ulp(through_jit[0], direct[0], ELEMENTWISE)    # fused vs eager: a few ulps
    rebuilt = jax.tree_util.tree_map(lambda r: r, f_vjp)
    np.testing.assert_array_equal(np.asarray(rebuilt(jnp.ones(3))[0]), np.asarray(direct[0]))
    with pytest.raises(TypeError, match="must be called with a single argument"):
        f_vjp(jnp.ones(3), jnp.ones(3))


# ================================================================== exceptions and reprs
# Where jxkernel's message (first line) still differs from JAX 0.10.2's; the class is the same.
MESSAGE_DIFFERS = {
    "vjp_pullback_splatted": "ours says it on one line, with the fix",
}


@functools.cache
def _reference():
    with open(os.path.join(locations.DATA, "jax_edges_reference.json")) as f:
        return json.load(f)


def _raised(thunk):
    with pytest.raises(Exception) as info:
        thunk()
    return [type(info.value).__name__, str(info.value).strip().splitlines()[0]]


def test_common_mistakes_raise_jaxs_exception_classes_and_messages():
    expected = _reference()["mistakes"]
    got = {name: _raised(thunk) for name, thunk in mistakes(jax).items()}
    assert sorted(got) == sorted(expected)
    assert {n: g[0] for n, g in got.items()} == {n: e[0] for n, e in expected.items()}
    assert {n: g[1] for n, g in got.items() if n not in MESSAGE_DIFFERS} == \
        {n: e[1] for n, e in expected.items() if n not in MESSAGE_DIFFERS}


def test_tracers_print_as_in_jax():
    assert tracer_prints(jax) == _reference()["tracer_prints"]


def test_has_aux_outputs_come_back_as_values_not_tracers():
    def loss(w):
        pred = jnp.tanh(w * 2.0)
        return jnp.sum(pred ** 2), {"pred": pred}
    w = jnp.array([0.1, -0.3])
    (_, aux), _ = jax.value_and_grad(loss, has_aux=True)(w)
    _, aux_grad = jax.grad(loss, has_aux=True)(w)
    _, aux_jacfwd = jax.jacfwd(lambda x: (jnp.sin(x), x.sum()), has_aux=True)(w)
    _, _, aux_jvp = jax.jvp(lambda x: (x * 2, x), (1.0,), (1.0,), has_aux=True)
    for value in (aux["pred"], aux_grad["pred"], aux_jacfwd):
        assert isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer)
    np.testing.assert_array_equal(np.asarray(aux["pred"]), np.asarray(jnp.tanh(w * 2.0)))
    assert aux_jvp == 1.0 and float(aux_jacfwd) == float(w.sum())
