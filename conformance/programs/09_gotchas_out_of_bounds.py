import jax.numpy as jnp

print(jnp.arange(10)[11])
print(jnp.arange(10.0).at[11].get())
print(jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan))
print(jnp.arange(10).at[11].set(23))
print(jnp.arange(10).at[-11].get(), jnp.arange(10)[-3])
print(jnp.arange(5).at[jnp.array([0, 7])].add(1, mode='drop'))
print(jnp.arange(5).at[jnp.array([0, 7])].add(1, mode='clip'))
print(jnp.arange(10.)[jnp.array([2, 5, 20])])
print(jnp.take(jnp.arange(4), jnp.array([5]), mode='clip'))
print(jnp.cumsum(jnp.arange(5)), jnp.argmax(jnp.array([1, 3, 3, 2])))
