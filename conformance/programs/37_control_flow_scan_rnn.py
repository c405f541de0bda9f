# conformance: ulps=16 atol=1e-7
# (gradients through a scan of tanh steps: code without FMA contraction moves small entries
# of gU by more than 16 of their own ulps; 1e-7 is an ulp of the largest)
import jax
import jax.numpy as jnp


def rnn_step(params, h, x):
    W, U, b = params
    h = jnp.tanh(W @ h + U @ x + b)
    return h, h


def run_rnn(params, xs):
    h0 = jnp.zeros(4)
    h, hs = jax.lax.scan(lambda h, x: rnn_step(params, h, x), h0, xs)
    return jnp.sum(h ** 2), hs


k1, k2, k3 = jax.random.split(jax.random.key(3), 3)
params = (0.3 * jax.random.normal(k1, (4, 4)), 0.3 * jax.random.normal(k2, (4, 2)), jnp.zeros(4))
xs = jax.random.normal(k3, (6, 2))
(loss, hs), grads = jax.value_and_grad(run_rnn, has_aux=True)(params, xs)
print(hs.shape, [g.shape for g in grads])
print(jax.jit(run_rnn)(params, xs)[1].shape)
RESULTS = {"loss": loss, "hs": hs, "gW": grads[0], "gU": grads[1], "gb": grads[2]}
