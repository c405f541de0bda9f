import jax
import jax.numpy as jnp

print(jnp.divide(0., 0.))
print(jnp.log(jnp.array([-1.0, 0.0, 1.0])))
jax.config.update("jax_debug_nans", True)
try:
    jnp.divide(0., 0.)
except FloatingPointError:
    print("caught FloatingPointError")
try:
    jax.jit(lambda x: jnp.sqrt(x) * 2)(jnp.array(-1.0))
except FloatingPointError:
    print("caught FloatingPointError under jit")
jax.config.update("jax_debug_nans", False)
print(jnp.sqrt(-1.0))
print(jnp.isnan(jnp.array([jnp.nan, 1.0])), jnp.isinf(jnp.inf), jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf])))
