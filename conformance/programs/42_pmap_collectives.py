# conformance: devices=4
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

n = jax.device_count()
x = jnp.arange(float(n))


@partial(jax.pmap, axis_name="d")
def stats(v):
    return lax.pmean(v, "d"), lax.pmax(v, "d"), lax.all_gather(v, "d")


print(stats(x))
perm = [(i, (i + 1) % n) for i in range(n)]
print(jax.pmap(lambda v: lax.ppermute(v, "d", perm), axis_name="d")(x))


@partial(jax.pmap, axis_name="batch")
def update(w, xb, yb):
    g = jax.grad(lambda w: jnp.mean((xb * w - yb) ** 2))(w)
    return w - 0.1 * lax.pmean(g, "batch")


w = jnp.ones(n)
xs = jnp.arange(n * 2.).reshape(n, 2)
for _ in range(3):
    w = update(w, xs, 3.0 * xs)
print(w)
