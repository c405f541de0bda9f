# conformance: ulps=16
# (gammaln and the distributions' log densities in code without FMA contraction: 16 ulps)
import jax.numpy as jnp
from jax.scipy import special, stats

x = jnp.array([0.5, 1.0, 2.5])
print(special.logsumexp(x), special.logsumexp(x, b=jnp.array([1., 0., 2.])))
print(special.gammaln(x), special.digamma(x))
print(special.erf(x), special.erfc(x), special.erfinv(jnp.array([0.1, 0.5])))
print(special.expit(x), special.logit(jnp.array([0.25, 0.5])), special.xlogy(2., 3.))
print(stats.norm.logpdf(x), stats.norm.cdf(x, loc=1., scale=2.))
print(stats.beta.pdf(0.3, 2., 3.), stats.poisson.logpmf(3, 2.0), stats.gamma.logpdf(1.5, 2.0))
print(stats.multivariate_normal.logpdf(jnp.array([0.5, -0.5]), jnp.zeros(2), jnp.eye(2)))
print(special.betainc(2., 3., 0.4), special.gammainc(2., 1.5), special.ndtri(0.975))
print(stats.t.logpdf(0.5, 3.0), stats.uniform.pdf(0.5), stats.bernoulli.pmf(1, 0.3))
