# conformance: ulps=16
import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp
from jax.scipy.stats import gaussian_kde, norm

samples = jax.random.normal(jax.random.key(5), (50,))
grid = jnp.linspace(-3, 3, 7)


def log_density(x, data, bandwidth=0.5):
    return logsumexp(norm.logpdf(x, data, bandwidth)) - jnp.log(data.shape[0])


dens = jax.vmap(log_density, in_axes=(0, None))(grid, samples)
print(dens.shape, jnp.argmax(dens))
kde = gaussian_kde(samples)
RESULTS = {"dens": dens, "kde": kde.evaluate(grid), "grad": jax.grad(log_density)(0.3, samples)}
