from functools import partial

import jax
import jax.numpy as jnp
from jax import grad, jit, lax


def f(x):
    if x < 3:
        return 3. * x ** 2
    else:
        return -4 * x


print(grad(f)(2.))
print(grad(f)(4.))


@jit
def f_jit(x):
    for i in range(3):
        x = 2 * x
    return x


print(f_jit(3))
try:
    jit(f)(2.)
except jax.errors.TracerBoolConversionError as e:
    print("caught", type(e).__name__)
print(jit(f, static_argnums=(0,))(2.))


def example_fun(length, val):
    return jnp.ones((length,)) * val


try:
    jit(example_fun)(10, 4)
except TypeError as e:
    print("caught", type(e).__name__)
good = jit(example_fun, static_argnums=(0,))
print(good(10, 4))
print(good(5, 4))


@partial(jit, static_argnames=["n"])
def loop_body(x, n):
    return lax.fori_loop(0, n, lambda i, c: c + i, x)


print(loop_body(jnp.float32(0), n=5))
print(lax.cond(True, lambda x: x + 1, lambda x: x - 1, 3.0))
