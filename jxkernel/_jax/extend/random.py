"""jxkernel.extend.random, as jax.extend.random: PRNG implementations of one's own
(`define_prng_impl`) and the built-in ones with their hash primitive.

    >>> import jxkernel.numpy as jnp
    >>> spec = define_prng_impl(key_shape=(2,), seed=lambda s: jnp.zeros(2, "uint32"),
    ...                         split=None, random_bits=None, fold_in=None, name="zeros")
    >>> spec
    PRNGSpec('zeros')
    >>> jax.random.key_data(jax.random.key(1, impl=spec))
    Array([0, 0], dtype=uint32)
"""
from __future__ import annotations

from ...random.keys import PRNGSpec
from ...random.prng import PRNGImpl, threefry2x32_p, threefry_2x32  # noqa: F401
from ...random.prng import threefry_prng_impl  # noqa: F401
from ...random.rbg import rbg_prng_impl, unsafe_rbg_prng_impl  # noqa: F401
from .._src.random.prng import random_seed  # noqa: F401
from .._src.random.prng import seed_with_impl  # noqa: F401


def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name: str = "<unnamed>",
                     tag: str = "?") -> PRNGSpec:
    """A PRNG implementation from its rules on one key's uint32 data of shape `key_shape`
    (`seed(int) -> key`, `split(key, shape)`, `random_bits(key, bit_width, shape)`,
    `fold_in(key, uint32)`), as the spec `jax.random.key(..., impl=)` takes (JAX's)."""
    return PRNGSpec(PRNGImpl(tuple(key_shape), seed, split, random_bits, fold_in, name=name,
                             tag=tag))
