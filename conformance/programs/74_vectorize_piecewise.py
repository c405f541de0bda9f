import jax
import jax.numpy as jnp


@jnp.vectorize
def relu_like(x):
    return jnp.where(x > 0, x, 0.1 * x)


print(relu_like(jnp.array([[-1., 2.], [3., -4.]])))
matvec = jnp.vectorize(jnp.dot, signature="(n,m),(m)->(n)")
print(matvec(jnp.ones((2, 3, 4)), jnp.arange(4.)).shape)
print(jnp.piecewise(jnp.arange(-2., 3.), [jnp.arange(-2., 3.) < 0], [lambda v: -v, lambda v: v ** 2]))
print(jax.vmap(jnp.vectorize(lambda a, b: a * b))(jnp.ones((2, 2)), jnp.arange(2.)))
print(jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3)))
print(jnp.frompyfunc(lambda a, b: a + b, 2, 1)(jnp.arange(3), 1))
