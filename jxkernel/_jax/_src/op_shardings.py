"""jxkernel._src.op_shardings, as jax._src.op_shardings: questions asked of XLA's HloSharding
(xla/op_shardings.py).

    >>> is_hlo_sharding_replicated(xc.HloSharding.replicate())
    True
"""
from ...xla.client import xc  # noqa: F401
from ...xla.op_shardings import (are_hlo_shardings_equal, get_num_ways_dim_sharded,  # noqa: F401
                                 is_hlo_sharding_replicated, op_sharding_to_indices)
