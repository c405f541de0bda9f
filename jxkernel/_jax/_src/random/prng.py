"""jxkernel._src.random.prng, as jax._src.random.prng: PRNG implementations (`PRNGImpl`, the
registry `prngs`), typed key arrays (`PRNGKeyArray`, their dtype `KeyTy`) and the key
primitives with their binding functions, all jxkernel's own (jxkernel/random/prng.py,
keys.py, key_prims.py).

    >>> random_bits(random_seed(0, impl=prngs["threefry2x32"]), bit_width=32, shape=(2,))
    Array([4070199207, 4202968722], dtype=uint32)
"""
from ....random.key_prims import (random_bits, random_bits_p, random_fold_in,  # noqa: F401
                                  random_fold_in_p, random_seed_p, random_split,
                                  random_split_p, random_unwrap, random_unwrap_p, random_wrap,
                                  random_wrap_p)
from ....random.keys import KeyArray as PRNGKeyArray, KeyDType as KeyTy  # noqa: F401
from ....random.keys import KeyTyRules, random_seed  # noqa: F401
from ....random.prng import (UINT_DTYPES, PRNGImpl, iota_2x32_shape,  # noqa: F401
                             iota_2x32_shape_p, prngs, register_prng)


def seed_with_impl(impl: PRNGImpl, seed):
    """Keys of `impl` from `seed` (JAX's prng.seed_with_impl: random_seed with the
    implementation first)."""
    return random_seed(seed, impl=impl)
