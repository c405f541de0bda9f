# conformance: atol=3e-7
# (gelu(-2) = -2 Phi(-2) is 0.045, from terms near 2: code without FMA contraction moves it by
# an ulp of those, 2e-7)
import jax
import jax.numpy as jnp

x = jnp.array([-2., -0.5, 0., 0.5, 2.])
print(jax.nn.relu(x), jax.nn.relu6(x * 4))
print(jax.nn.sigmoid(x))
print(jax.nn.softplus(x))
print(jax.nn.gelu(x), jax.nn.gelu(x, approximate=False))
print(jax.nn.silu(x), jax.nn.elu(x), jax.nn.leaky_relu(x))
print(jax.nn.softmax(x), jax.nn.log_softmax(x))
print(jax.nn.one_hot(jnp.array([0, 2, 3]), 3))
print(jax.nn.logsumexp(x), jax.nn.standardize(x))
print(jax.nn.softmax(jnp.array([[1., 2.], [3., 5.]]), axis=0))
print(jax.grad(lambda v: jnp.sum(jax.nn.relu(v)))(x))
print(jax.nn.glu(jnp.arange(4.)), jax.nn.hard_tanh(x), jax.nn.celu(x))
