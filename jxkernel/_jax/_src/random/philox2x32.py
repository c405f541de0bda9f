"""jxkernel._src.random.philox2x32, as jax._src.random.philox2x32 (jxkernel/random/philox.py)."""
from ....random.philox import (philox2x32_p, philox2x32_prng_impl,  # noqa: F401
                               philox2x32_random_bits)
