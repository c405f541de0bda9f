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


def __getattr__(name):
    """`gaussian_kde` loads with its module on first use."""
    if name == "gaussian_kde":
        from .kde import gaussian_kde   # lazy: the KDE loads on first use
        return gaussian_kde
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"gaussian_kde"})
