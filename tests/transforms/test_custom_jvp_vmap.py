"""vmap of a custom_jvp function: unbatched inputs stay unbatched inside it, as in JAX (a cond
on one stays a cond; Equinox's error_if relies on it), and its jvp rule is vmapped alike."""
import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax


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
