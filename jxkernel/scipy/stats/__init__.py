"""jxkernel.scipy.stats: jax.scipy.stats' distributions, one module each (``norm.logpdf``,
``poisson.logpmf``, ...), with JAX 0.10.2's formulas so the numbers match JAX's; plus
mode, rankdata and sem.

    >>> from jxkernel.scipy.stats import norm
    >>> norm.logpdf(0.0)
    Array(-0.9189385, dtype=float32, weak_type=True)

gaussian_kde (kde.py, a pytree class) loads on first use: `import jxkernel` stays as fast.
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
from ...core.lazy_names import lazy_names as _lazy_names


# gaussian_kde loads with its module on first use, through the package's table of lazy names
__getattr__, __dir__ = _lazy_names(__name__, globals(), {"gaussian_kde": (".kde", "gaussian_kde")})
