import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals


def g(W, x):
    return jnp.sin(jnp.dot(W, x))


def f(W1, W2, W3, x):
    x = g(W1, x)
    x = g(W2, x)
    return g(W3, x)


W1 = jnp.ones((3, 3)) * 0.1
W2 = jnp.ones((3, 3)) * 0.2
W3 = jnp.ones((3, 3)) * 0.3
x = jnp.ones(3)
print_saved_residuals(f, W1, W2, W3, x)
f2 = lambda *a: jnp.sum(jax.checkpoint(f)(*a))
print(jax.grad(f2)(W1, W2, W3, x)[0])
g2 = jax.checkpoint(g, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
print(jax.grad(lambda W: jnp.sum(g2(W, x)))(W1))
