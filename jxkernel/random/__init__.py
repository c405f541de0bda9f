"""jxkernel.random: JAX's counter-based PRNG (threefry2x32), bit for bit.

Keys are explicit values: make one from a seed, split it into new keys, and pass a
key to each sampler. The same key always gives the same numbers, eagerly, under jit
or vmap, and the same numbers as JAX 0.10.2.

    >>> import jxkernel.random as random
    >>> key = random.PRNGKey(0)
    >>> key, subkey = random.split(key)
    >>> random.normal(subkey, (2,))
    Array([-2.4424558, -2.0356805], dtype=float32)
"""
from .keys import (PRNGKey, bits, clone, fold_in, key, key_data, key_dtype,  # noqa: F401
                   key_impl, split, wrap_key_data)
from .samplers import (bernoulli, cauchy, exponential, gumbel, laplace, logistic,  # noqa: F401
                       normal, rademacher, randint, truncated_normal, uniform)
from .discrete import categorical, choice, permutation  # noqa: F401
from .rejection import beta, dirichlet, gamma, loggamma, poisson, random_gamma_p  # noqa: F401
from .matrices import multivariate_normal, orthogonal  # noqa: F401
from .derived import (ball, chisquare, double_sided_maxwell, f, generalized_normal,  # noqa: F401
                      geometric, lognormal, maxwell, pareto, rayleigh, t, triangular, wald,
                      weibull_min)
from .counts import binomial, multinomial  # noqa: F401
from . import key_reuse  # noqa: F401,E402  (the key-reuse checker, jax_debug_key_reuse)
