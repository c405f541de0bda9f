import jax
import jax.numpy as jnp


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


x = jnp.arange(-3.0, 3.0, 0.5)
selu_jit = jax.jit(selu)
y = selu_jit(x).block_until_ready()
print(y)
print(y.dtype, y.shape)
print(jnp.allclose(y, selu(x)))
RESULTS = {"selu": y, "selu_eager": selu(x)}
