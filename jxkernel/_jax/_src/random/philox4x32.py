"""jxkernel._src.random.philox4x32, as jax._src.random.philox4x32 (jxkernel/random/philox.py)."""
from ....random.philox import (philox4x32_p, philox4x32_prng_impl,  # noqa: F401
                               philox4x32_random_bits)
