import jax
import jax.numpy as jnp

traces = []


def f(x):
    traces.append(1)
    return x * 2 + 1


x = jnp.arange(3.)
for i in range(20):
    x = jax.jit(f)(x)
print(x)
print("traced", len(traces), "times")


def helper(v):
    return jax.jit(f)(v)


for _ in range(5):
    helper(jnp.ones(2))
print("traced", len(traces), "times after helper")
g = jax.jit(lambda v, n: v * n, static_argnums=1)
for n in (2, 3, 2, 3):
    g(jnp.ones(2), n)
print(g._cache_size())
print(jax.jit(f)._cache_size())
