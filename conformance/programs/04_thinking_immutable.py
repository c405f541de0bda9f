import jax.numpy as jnp
import numpy as np

x = np.arange(10)
x[0] = 10
print(x)

y = jnp.arange(10)
try:
    y[0] = 10
except TypeError as e:
    print("TypeError raised:", type(e).__name__)

z = y.at[0].set(10)
print(y)
print(z)
print(y.at[2:5].add(100))
print(y.at[jnp.array([1, 1, 3])].add(1))
print(y.at[-1].multiply(3), y.at[0].min(-5), y.at[0].max(5))
print(jnp.arange(6.).reshape(2, 3).at[:, 1].divide(4.))
print(jnp.ones(4).at[::2].power(3))
print(type(z).__name__ == "ArrayImpl", isinstance(z, jnp.ndarray))
