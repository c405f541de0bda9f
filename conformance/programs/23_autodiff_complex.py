import jax
import jax.numpy as jnp


def f(z):
    x, y = jnp.real(z), jnp.imag(z)
    return x ** 2 + y ** 2


z = 3. + 4j
print(jax.grad(f)(z))


def g(z):
    return jnp.sin(z)


print(jax.grad(g, holomorphic=True)(z))
try:
    jax.grad(g)(z)
except TypeError as e:
    print("caught", type(e).__name__)
print(jax.grad(lambda z: jnp.abs(z) ** 2)(1. + 1j))
print(jax.jvp(jnp.exp, (1j,), (1. + 0j,)))
print(jnp.array([1 + 2j, 3 - 1j]).dtype, jnp.conj(1 + 2j), jnp.angle(1j))
