"""jxkernel._src.random.core, as jax._src.random.core: the samplers and key functions of
jax.random, with the private helpers JAX's tests call (`_check_broadcast_shapes`,
`_safe_int_to_float`), all jxkernel's own (jxkernel/random/).

    >>> _check_broadcast_shapes("beta", None, np.ones(3), 2.0)
    (3,)
"""
import numpy as np  # noqa: F401  (the doctest's)

from ....random import (PRNGKey, ball, bernoulli, beta, binomial, bits, categorical,  # noqa: F401
                        cauchy, chisquare, choice, clone, dirichlet, double_sided_maxwell,
                        exponential, f, fold_in, gamma, generalized_normal, geometric, gumbel,
                        key, key_data, key_dtype, key_impl, laplace, loggamma, logistic,
                        lognormal, maxwell, multinomial, multivariate_normal, normal,
                        orthogonal, pareto, permutation, poisson, rademacher, randint,
                        random_gamma_p, rayleigh, split, t, triangular, truncated_normal,
                        uniform, wald, weibull_min, wrap_key_data)
from ....random.key_prims import random_clone_p  # noqa: F401
from ....random.keys import PRNGSpec, default_prng_impl, resolve_prng_impl  # noqa: F401
from ....random.samplers import _check_broadcast_shapes, _safe_int_to_float  # noqa: F401
