import jax
import jax.numpy as jnp
import numpy as np

print(np.sum([1, 2, 3]))
try:
    jnp.sum([1, 2, 3])
except TypeError as e:
    print("TypeError:", str(e).startswith("sum requires ndarray or scalar arguments"))


def permissive_sum(x):
    return jnp.sum(jnp.array(x))


x = list(range(10))
print(jax.make_jaxpr(permissive_sum)(x))
print(jnp.sum(jnp.array(x)))
print(jnp.asarray((1, 2.5)), jnp.array([True, 2]).dtype, jnp.asarray(np.float64(1.5)).dtype)
