# conformance: ulps=16 atol=1e-6
# (each entry is a sum of 10 products of up to ~3: where it cancels to near 0, the order in which
# a CPU's dot kernel adds them moves it by hundreds of its own ulps; 1e-6 is 2 ulps of the largest)
import jax
import jax.numpy as jnp
from jax import random, vmap

key = random.key(1701)
key1, key2 = random.split(key)
mat = random.normal(key1, (15, 10))
batched_x = random.normal(key2, (4, 10))


def apply_matrix(x):
    return jnp.dot(mat, x)


def naively_batched_apply_matrix(v_batched):
    return jnp.stack([apply_matrix(v) for v in v_batched])


@jax.jit
def vmap_batched_apply_matrix(batched_x):
    return vmap(apply_matrix)(batched_x)


a = naively_batched_apply_matrix(batched_x)
b = vmap_batched_apply_matrix(batched_x)
print(a.shape, b.shape)
print(jnp.allclose(a, b, atol=1e-4, rtol=1e-4))
RESULTS = {"mat": mat, "x": batched_x, "vmapped": b}
