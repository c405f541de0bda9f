# conformance: ulps=8 atol=3e-7
# (gw goes through 1 - tanh^2, which cancels where tanh saturates: code without FMA
# contraction moves small entries by hundreds of their own ulps; 3e-7 is an ulp of the largest)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    w, b = params
    pred = jnp.tanh(x @ w + b)
    return jnp.mean((pred - y) ** 2)


kx, ky, kw = jax.random.split(jax.random.key(0), 3)
xs = jax.random.normal(kx, (5, 3))
ys = jax.random.normal(ky, (5,))
params = (jax.random.normal(kw, (3,)), 0.1)
per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
gw, gb = per_example(params, xs, ys)
print(gw.shape, gb.shape)
total = jax.grad(loss)(params, xs, ys)
print(jnp.allclose(total[0], gw.mean(0), atol=1e-6), jnp.allclose(total[1], gb.mean(), atol=1e-6))
RESULTS = {"gw": gw, "gb": gb, "total_w": total[0]}
