import jax
import jax.numpy as jnp
from jax import lax

operand = jnp.array([0.])
print(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand))
print(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand))
branches = [lambda x: x * 2, lambda x: x + 10, lambda x: -x]
print([lax.switch(i, branches, 3.0).item() for i in range(-1, 5)])
f = jax.jit(lambda i, x: lax.switch(i, branches, x))
print(f(1, 3.0), f(7, 3.0))
print(lax.select(jnp.array([True, False]), jnp.array([1, 2]), jnp.array([3, 4])))
print(jnp.where(jnp.arange(4) % 2 == 0, 1.0, -1.0))
print(jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0))
print(jax.vmap(lambda p, x: lax.cond(p, lambda v: v * 2, lambda v: v / 2, x))(jnp.array([True, False]), jnp.array([4., 4.])))
print(lax.cond(True, lambda a, b: a + b, lambda a, b: a - b, 5, 2))
try:
    lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)
except TypeError as e:
    print("caught", type(e).__name__)
