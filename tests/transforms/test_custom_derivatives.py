"""custom_jvp and custom_vjp as JAX has them.

- vmap of a custom_jvp function: unbatched inputs stay unbatched inside it, as in JAX (a cond
  on one stays a cond; Equinox's error_if relies on it), and its jvp rule is vmapped alike.
- A custom_vjp's bwd runs even when every cotangent reaching it is zero, as in JAX: its
  results need not come from the cotangents (Flax's fp8 layers return updated statistics as the
  "gradient" of their history input, and only their other outputs feed the loss).
- custom_vjp with symbolic_zeros=True: fwd gets each primal leaf as a CustomVJPPrimal saying
  whether it is perturbed, as JAX's does (Equinox's filter_custom_vjp is built on it).
- Outside jit the rules run their Python on concrete values; a rule closing over a
  differentiated value raises JAX's UnexpectedTracerError.
"""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.custom_derivatives import CustomVJPPrimal
from numerics import ELEMENTWISE, assert_allclose_ulp


# ---------------------------------------------------------------- vmap of custom_jvp
@jax.custom_jvp
def scale_unless(x, flag):
    return lax.cond(flag, lambda: x * 0.0, lambda: x * 2.0)


@scale_unless.defjvp
def _scale_unless_jvp(primals, tangents):
    (x, flag), (tx, _) = primals, tangents
    return scale_unless(x, flag), scale_unless(tx, flag)


def _primitives(jaxpr):
    for eqn in jaxpr.eqns:
        yield eqn.primitive.name
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            yield from _primitives(sub)


def test_an_unbatched_predicate_keeps_its_cond():
    f = jax.vmap(scale_unless, in_axes=(0, None))
    names = set(_primitives(jax.make_jaxpr(f)(jnp.ones(3), False).jaxpr))
    assert "cond" in names and "select_n" not in names
    np.testing.assert_array_equal(f(jnp.arange(3.0), False), [0.0, 2.0, 4.0])


def test_jvp_and_grad_through_the_vmapped_call():
    f = jax.vmap(scale_unless, in_axes=(0, None))
    out, tangent = jax.jvp(lambda x: f(x, False), (jnp.arange(3.0),), (jnp.ones(3),))
    np.testing.assert_array_equal(tangent, [2.0, 2.0, 2.0])
    grads = jax.grad(lambda x, flag: f(x, flag).sum())(jnp.arange(3.0), True)
    np.testing.assert_array_equal(grads, [0.0, 0.0, 0.0])

    @jax.custom_jvp
    def mul(x, y):
        return x * y

    def mul_jvp(primals, tangents):     # symbolic zeros reach the vmapped rule unbatched
        (x, y), (tx, ty) = primals, tangents
        tx = 0.0 if type(tx) is jax.custom_derivatives.SymbolicZero else tx
        ty = 0.0 if type(ty) is jax.custom_derivatives.SymbolicZero else ty
        return x * y, tx * y + x * ty

    mul.defjvp(mul_jvp, symbolic_zeros=True)
    g = jax.vmap(mul, in_axes=(0, None))
    np.testing.assert_array_equal(jax.grad(lambda x: g(x, 2.0).sum())(jnp.arange(3.0)), [2.0] * 3)
    _, t = jax.jvp(g, (jnp.arange(3.0), 2.0), (jnp.ones(3), 1.0))
    np.testing.assert_array_equal(t, [2.0, 3.0, 4.0])


# ---------------------------------------------------------------- custom_vjp's bwd with zero cotangents
@jax.custom_vjp
def stats(x, history):
    return jnp.round(x), history


def _fwd(x, history):
    return stats(x, history), (jnp.max(jnp.abs(x)), history)


def _bwd(res, cts):
    amax, history = res
    seen.append([c.shape for c in cts])      # zeros, instantiated: arrays of their shapes
    return jnp.zeros_like(cts[0]), history.at[0].set(amax)


stats.defvjp(_fwd, _bwd)
seen = []


def loss(x, history):
    rounded, _ = stats(x, history)
    return 0.0 * jnp.sum(rounded)       # a zero cotangent, but one that reaches bwd


def dead_loss(x, history):
    rounded, _ = stats(x, history)
    return jnp.sum(jax.lax.stop_gradient(rounded)) + 0.0 * jnp.sum(x)


def test_bwd_runs_with_zero_cotangents_eagerly_and_under_jit():
    x, history = jnp.array([0.5, -3.0]), jnp.zeros(3)
    for grad in (jax.grad(loss, argnums=1), jax.jit(jax.grad(loss, argnums=1))):
        seen.clear()
        np.testing.assert_array_equal(grad(x, history), [3.0, 0.0, 0.0])
        assert seen == [[(2,), (3,)]]


def test_bwd_of_outputs_nothing_differentiable_reads_never_runs():
    # JAX 0.10.2 drops the dead custom_lin from its linear jaxpr: no bwd, a zero gradient
    x, history = jnp.array([0.5, -3.0]), jnp.zeros(3)
    seen.clear()
    np.testing.assert_array_equal(jax.grad(dead_loss, argnums=1)(x, history), [0.0, 0.0, 0.0])
    assert seen == []


# ---------------------------------------------------------------- custom_vjp with symbolic zeros
def _mul_recording_perturbed(seen):
    f = jax.custom_vjp(lambda x, y: x * y)

    def fwd(x, y):
        assert type(x) is CustomVJPPrimal and type(y) is CustomVJPPrimal
        seen.append((x.perturbed, y.perturbed))
        return x.value * y.value, (x.value, y.value)

    f.defvjp(fwd, lambda res, g: (res[1] * g, res[0] * g), symbolic_zeros=True)
    return f


def test_fwd_sees_which_primals_are_perturbed_under_grad_vjp_jit_and_vmap():
    seen = []
    f = _mul_recording_perturbed(seen)
    assert float(jax.grad(f)(2.0, 3.0)) == 3.0
    assert float(jax.grad(f, argnums=1)(2.0, 3.0)) == 2.0
    _, pullback = jax.vjp(f, 2.0, 3.0)
    assert [float(c) for c in pullback(1.0)] == [3.0, 2.0]
    g = jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None)))(jnp.array([1.0, 2.0]), 5.0)
    np.testing.assert_array_equal(g, [5.0, 5.0])
    assert seen == [(True, False), (False, True), (True, True), (True, False)]
    assert float(f(2.0, 4.0)) == 8.0        # called outside AD: the primal function


def test_grad_of_a_jitted_custom_vjp_traces_bwd_once():
    traces = []
    f = jax.custom_vjp(lambda x: x)
    f.defvjp(lambda x: (x, None), lambda _, g: (traces.append(1) or g + 2,))
    jf = jax.jit(f)
    assert float(jax.grad(jf)(1.0)) == 3.0
    assert float(jax.grad(jf)(1.0)) == 3.0
    assert len(traces) == 1


def test_rules_see_a_jaxprs_literals_as_values():
    # a constant argument is a Literal of the jaxpr that grad of jit replays: fwd and jvp
    # rules get an array of its type (Equinox's checkpointed while_loop reads its .shape)
    seen = []
    f = jax.custom_vjp(lambda x, n: x * n)
    f.defvjp(lambda x, n: (seen.append(n) or x * n, n), lambda n, g: (g * n, None))
    h = jax.custom_jvp(lambda x, n: x * n)
    h.defjvp(lambda p, t: (seen.append(p[1]) or p[0] * p[1], t[0] * p[1]))
    for fn in (f, h):
        for n in (3.0, np.float32(3.0)):
            assert float(jax.grad(lambda x: jax.jit(lambda y: fn(y, n))(x))(2.0)) == 3.0
    assert len(seen) == 4 and all(v.shape == () and v.dtype == np.float32 for v in seen)
    assert [getattr(v, "weak_type", False) for v in seen] == [True, False] * 2   # kept weak


def test_bwd_does_not_run_for_a_call_without_outputs():
    # JAX's linearize drops such an equation; Equinox's filter_custom_vjp makes one when the
    # forward output is a Python scalar (static)
    runs = []
    f = jax.custom_vjp(lambda x: ())
    f.defvjp(lambda x: ((), None), lambda _, g: (runs.append(1) or 0.0,))
    assert float(jax.grad(lambda x: (f(x), x * 3.0)[1])(2.0)) == 3.0
    assert runs == []


# ---------------------------------------------------------------- rules run on concrete values
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
    # (grad's input a scalar: a traced array of two elements is refused for its size first,
    # JAX's ValueError)
    for transform, x in ((jax.jit(jax.grad(soft_abs)), 1.0), (jax.vmap(soft_abs), jnp.ones(2)),
                         (jax.vmap(clipped), jnp.ones(2))):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            transform(x)


def test_a_custom_rule_closing_over_a_differentiated_value_raises_as_jax():
    def outer(y):
        @jax.custom_jvp
        def f(x):
            return x * y
        f.defjvp(lambda p, t: (f(p[0]), t[0] * y))
        return f(2.0)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.grad(outer)(3.0)


def test_custom_vjp_over_custom_vmap_forwards_def_vmap():
    # JAX's custom_vmap docstring: `f.def_vmap` on a custom_vjp that wraps a custom_vmap
    # reaches the inner function (custom_api_util.forward_attr: names starting with "def")
    @jax.custom_vjp
    @jax.custom_batching.custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) * ys, True

    f.defvjp(lambda x, y: (f(x, y), (jnp.cos(x), jnp.sin(x), y)),
             lambda res, g: (res[0] * g * res[2], res[1] * g))
    # cos(0) * 1 under vmap (the rule), not sin(0) * 1: exactly 1
    assert np.asarray(jax.vmap(f)(jnp.zeros(3), jnp.ones(3))).tolist() == [1.0, 1.0, 1.0]
    assert float(jax.grad(f)(jnp.zeros(()), jnp.ones(()))) == 1.0
    with pytest.raises(AttributeError):
        f.not_a_rule
