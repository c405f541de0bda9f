"""jxkernel._src.random.rbg, as jax._src.random.rbg: the RngBitGenerator implementations
(jxkernel/random/rbg.py)."""
from ....random.rbg import rbg_prng_impl, unsafe_rbg_prng_impl  # noqa: F401
