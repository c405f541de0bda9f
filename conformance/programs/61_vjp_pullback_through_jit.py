import jax
import jax.numpy as jnp

f = lambda x: jnp.sin(x) * x
y, pullback = jax.vjp(f, jnp.arange(3.))
print(jax.tree.structure(pullback).num_leaves > 0, callable(pullback))
apply = jax.jit(lambda pb, ct: pb(ct))
print(apply(pullback, jnp.ones(3)))
print(jax.jit(lambda pb: pb(jnp.full(3, 2.0))[0])(pullback))
