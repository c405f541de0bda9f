import jax
import jax.numpy as jnp
from jax import lax

print(lax.fori_loop(0, 3, lambda i, x: x + i, 0))
print(lax.fori_loop(0, 0, lambda i, x: x + i, 5))
print(type(lax.fori_loop(0, 0, lambda i, x: x + 1.0, jnp.float32(1))).__name__)
zero = lax.fori_loop(0, 0, lambda i, x: x + 1, 4)
print(zero, type(zero).__name__, jnp.asarray(zero).dtype)
print(lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1))
print(lax.fori_loop(0, 5, lambda i, c: (c[0] + i, c[1] * 2), (0, 1.0)))
init, xs = 0, jnp.arange(5)
print(lax.scan(lambda c, x: (c + x, c * x), init, xs))
print(lax.scan(lambda c, _: (c + 1, c), 0, None, length=3))
print(lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4), reverse=True))
print(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0))
print(lax.map(lambda v: v ** 2, jnp.arange(4)))
print(lax.associative_scan(jnp.add, jnp.arange(6)))
print(jnp.cumsum(jnp.arange(6)), lax.cumsum(jnp.arange(6.), reverse=True))
