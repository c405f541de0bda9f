"""jax.experimental.sparse.bcoo: JAX's one module for the BCOO format, whose names jxkernel
keeps in four (jxkernel/api/sparse/): bcoo.py (the class, todense, extract, fromdense,
transpose), bcoo_spdot.py (the products: `bcoo_dot_general`, `bcoo_spdot_general`, ...),
bcoo_layout.py and bcoo_shape.py. A name is looked up in them in that order.

    >>> bcoo_dot_general is jxkernel.api.sparse.bcoo_spdot.bcoo_dot_general
    True
"""
import jxkernel  # noqa: F401  (the example's)

from ....core.lazy_names import names_of
from ....api.sparse import bcoo as _bcoo, bcoo_layout as _layout, bcoo_shape as _shape
from ....api.sparse import bcoo_spdot as _spdot
from ....api.sparse.bcoo import *  # noqa: F401,F403  (public names in the module's globals:
from ....api.sparse.bcoo_spdot import *  # noqa: F401,F403  JAX's docstrings run in them;
from ....api.sparse.bcoo_layout import *  # noqa: F401,F403  the private ones by __getattr__)
from ....api.sparse.bcoo_shape import *  # noqa: F401,F403

__getattr__, __dir__ = names_of(__name__, (_bcoo, _spdot, _layout, _shape), globals())
