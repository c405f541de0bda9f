import jax
import jax.numpy as jnp


def f(x, y):
    return jnp.tanh(x) @ y


jitted = jax.jit(f)
traced = jitted.trace(jnp.ones((2, 3)), jnp.ones(3))
print(traced.jaxpr)
lowered = traced.lower()
print(type(lowered.as_text()).__name__, "stablehlo" in lowered.as_text() or "mhlo" in lowered.as_text())
compiled = lowered.compile()
print(compiled(jnp.ones((2, 3)), jnp.arange(3.)))
print(jitted.lower(jnp.ones((2, 3)), jnp.ones(3)).out_info)
print(jax.jit(f).eval_shape(jnp.ones((2, 3)), jnp.ones(3)))
