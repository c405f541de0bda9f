from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x, neg):
    return -x if neg else x


try:
    f(1, True)
except jax.errors.TracerBoolConversionError as e:
    print("caught", type(e).__name__)


@partial(jax.jit, static_argnums=(1,))
def g(x, neg):
    return -x if neg else x


print(g(1, True), g(1, False))


@partial(jax.jit, static_argnames=["n"])
def power(x, n):
    return x ** n


print(power(jnp.arange(4.), n=3))


@jax.jit
def h(x):
    return x.reshape(jnp.array(x.shape).prod())


try:
    h(jnp.ones((2, 3)))
except TypeError as e:
    print("caught", type(e).__name__)


@jax.jit
def h2(x):
    return x.reshape((np.prod(x.shape),))


print(h2(jnp.ones((2, 3))))
