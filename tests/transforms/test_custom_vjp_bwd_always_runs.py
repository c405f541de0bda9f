"""A custom_vjp's bwd runs even when every cotangent reaching it is zero, as in JAX: its
results need not come from the cotangents (Flax's fp8 layers return updated statistics as the
"gradient" of their history input, and only their other outputs feed the loss)."""
import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp


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
    return jnp.sum(jax.lax.stop_gradient(rounded)) + 0.0 * jnp.sum(x)


def test_bwd_runs_with_zero_cotangents_eagerly_and_under_jit():
    x, history = jnp.array([0.5, -3.0]), jnp.zeros(3)
    for grad in (jax.grad(loss, argnums=1), jax.jit(jax.grad(loss, argnums=1))):
        seen.clear()
        np.testing.assert_array_equal(grad(x, history), [3.0, 0.0, 0.0])
        assert seen == [[(2,), (3,)]]
