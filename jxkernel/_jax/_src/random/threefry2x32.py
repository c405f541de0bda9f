"""jxkernel._src.random.threefry2x32, as jax._src.random.threefry2x32: JAX's default PRNG's
hash and its functions on one key's data (jxkernel/random/prng.py).

    >>> threefry_split(threefry_seed(np.int32(0)), (1,))
    Array([[1797259609, 2579123966]], dtype=uint32)
"""
import numpy as np  # noqa: F401  (the doctest's)

from ....random.prng import (threefry2x32_p, threefry_2x32, threefry_fold_in,  # noqa: F401
                             threefry_prng_impl, threefry_random_bits, threefry_seed,
                             threefry_split)
