"""jxkernel._src.random.threefry4x32, as jax._src.random.threefry4x32 (jxkernel/random/
threefry4x32.py)."""
from ....random.threefry4x32 import (threefry4x32_p, threefry4x32_prng_impl,  # noqa: F401
                                     threefry4x32_random_bits)
