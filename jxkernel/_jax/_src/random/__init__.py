"""jxkernel._src.random, as jax._src.random: JAX's private package of its PRNG, whose modules
JAX's own tests import (`prng`, `threefry2x32`, `core`, ...). Every name is jxkernel's own, from
jxkernel/random/ (the same objects as `jax.random.key`, ...).

    >>> from jxkernel._src.random import prng
    >>> list(prng.prngs)
    ['philox2x32', 'philox4x32', 'threefry2x32', 'rbg', 'unsafe_rbg', 'threefry4x32']
"""
from . import core, philox2x32, philox4x32, prng, rbg, threefry2x32, threefry4x32  # noqa: F401
from .core import (PRNGKey, PRNGSpec, ball, bernoulli, beta, binomial, bits,  # noqa: F401
                   categorical, cauchy, chisquare, choice, clone, default_prng_impl, dirichlet,
                   double_sided_maxwell, exponential, f, fold_in, gamma, generalized_normal,
                   geometric, gumbel, key, key_data, key_dtype, key_impl, laplace, loggamma,
                   logistic, lognormal, maxwell, multinomial, multivariate_normal, normal,
                   orthogonal, pareto, permutation, poisson, rademacher, randint,
                   random_clone_p, random_gamma_p, rayleigh, resolve_prng_impl, split, t,
                   triangular, truncated_normal, uniform, wald, weibull_min, wrap_key_data)
