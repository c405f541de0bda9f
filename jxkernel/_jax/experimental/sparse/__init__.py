"""jax.experimental.sparse: the sparse package's names (`jxkernel/api/sparse/`, its modules
as attributes too) and `random_bcoo`, which draws with the random layer, above `api/`.
`linalg` loads on first use (it loads SciPy, which `spsolve` calls, as JAX's does), and so
do `util` (JAX's helpers) and `_lowerings` (its cuSPARSE primitives: no kernel here).

    >>> random_bcoo(jax.random.key(0), (2, 3), nse=2).shape
    (2, 3)
"""
import importlib

from ....api.sparse import *  # noqa: F401,F403
from ....api.sparse import (ad, api, bcoo_layout, bcoo_shape, bcoo_spdot, bcsr,  # noqa: F401
                           bcsr_ops, coo, csr, transform)
from ....core.lazy_names import lazy_names, module_aliases
from ....random import sparse_bcoo as random  # noqa: F401  (JAX's sparse.random module)
from ....random.sparse_bcoo import random_bcoo  # noqa: F401

# a package, as JAX's: `from jax.experimental.sparse.bcoo import BCOO` and the submodules'
# own names (JAX's docstrings run in them) reach jxkernel's modules
module_aliases(__name__, {name: f"jxkernel.api.sparse.{name}" for name in (
    "ad", "api", "bcsr", "coo", "csr")} |
    {"random": "jxkernel.random.sparse_bcoo"})
# JAX's one BCOO module (bcoo.py and the products beside it), over the star import's `bcoo`
bcoo = importlib.import_module(f"{__name__}.bcoo")  # noqa: F811
# and its one sparsify module (transform.py and spvalues.py), over the star import's
transform = importlib.import_module(f"{__name__}.transform")  # noqa: F811
# JAX's helpers' module (`util`) and its cuSPARSE primitives (`_lowerings`) load on first use
__getattr__, __dir__ = lazy_names(__name__, globals(), module_aliases(
    __name__, {"linalg": "jxkernel.api.sparse.linalg", "util": "jxkernel.api.sparse.util",
               "_lowerings": "jxkernel.api.sparse.cusparse"}))
