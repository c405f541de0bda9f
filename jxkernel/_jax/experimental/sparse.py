"""jax.experimental.sparse: the sparse package's names (`jxkernel/api/sparse/`, its modules
as attributes too) and `random_bcoo`, which draws with the random layer, above `api/`.

    >>> random_bcoo(jax.random.key(0), (2, 3), nse=2).shape
    (2, 3)
"""
from ...api.sparse import *  # noqa: F401,F403
from ...api.sparse import (ad, api, bcoo, bcoo_layout, bcoo_shape, bcoo_spdot, bcsr,  # noqa: F401
                          bcsr_ops, coo, csr, transform)
from ...random import sparse_bcoo as random  # noqa: F401  (JAX's sparse.random module)
from ...random.sparse_bcoo import random_bcoo  # noqa: F401
