"""jxkernel.scipy.stats: jax.scipy.stats' distributions, one module each (``norm.logpdf``,
``poisson.logpmf``, ...), with JAX 0.10.2's formulas so the numbers match JAX's; plus
mode, rankdata and sem.

    >>> from jxkernel.scipy.stats import norm
    >>> norm.logpdf(0.0)
    Array(-0.9189385, dtype=float32, weak_type=True)

Not provided: gaussian_kde (JAX's is a registered pytree class with resampling and
integration methods; not ported).
"""
from . import (  # noqa: F401
               bernoulli,
               beta,
               betabinom,
               binom,
               cauchy,
               chi2,
               dirichlet,
               expon,
               gamma,
               gennorm,
               geom,
               gumbel_l,
               gumbel_r,
               laplace,
               logistic,
               multinomial,
               multivariate_normal,
               nbinom,
               norm,
               pareto,
               poisson,
               t,
               truncnorm,
               uniform,
               vonmises,
               wrapcauchy,
)
from ._core import ModeResult, mode, rankdata, sem  # noqa: F401
