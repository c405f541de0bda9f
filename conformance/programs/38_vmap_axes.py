import jax
import jax.numpy as jnp
from jax import vmap

x = jnp.arange(6.).reshape(2, 3)
print(vmap(jnp.sum)(x))
print(vmap(jnp.sum, in_axes=1)(x))
print(vmap(lambda a, b: a * b, in_axes=(0, None))(x, jnp.float32(2)))
print(vmap(lambda a: a * 2, out_axes=1)(x))
print(vmap(lambda d: d["a"] + d["b"], in_axes=({"a": 0, "b": None},))({"a": jnp.arange(3.), "b": 1.0}))
print(vmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(1., 5.)))
print(vmap(vmap(jnp.outer))(jnp.ones((2, 3, 2)), jnp.ones((2, 3, 2))).shape)
print(vmap(lambda v: (v, v.sum()))(x))
print(vmap(jnp.dot, in_axes=(0, 0))(x, x))
try:
    vmap(jnp.add)(jnp.ones(2), jnp.ones(3))
except ValueError as e:
    print("caught", type(e).__name__)
print(vmap(lambda a: a, axis_size=None)(jnp.arange(2)))
print(vmap(lambda a: jax.lax.axis_index("b") + a, axis_name="b")(jnp.zeros(3, jnp.int32)))
print(vmap(lambda v: jax.lax.pmax(v, "i"), axis_name="i")(jnp.array([3, 9, 1])))
print(jax.vmap(jax.grad(lambda x: x ** 3))(jnp.arange(3.)))
