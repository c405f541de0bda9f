# conformance: ulps=16
import jax
import jax.numpy as jnp


@jax.checkpoint
def layer(w, x):
    return jnp.tanh(w * x) + jnp.sin(x)


def model(w, x):
    for _ in range(4):
        x = layer(w, x)
    return jnp.sum(x)


w, x = 0.7, jnp.linspace(0, 1, 5)
g_remat = jax.grad(model)(w, x)
print(g_remat)
print(jax.jit(jax.grad(model))(w, x))
print(jax.remat(jnp.sin)(1.0), jax.grad(jax.checkpoint(jnp.exp, prevent_cse=False))(0.0))
