"""jax.experimental.sparse.transform: JAX's one module for `sparsify`, whose names jxkernel
keeps in two (jxkernel/api/sparse/): transform.py (`sparsify`, `SparseTracer`, the sparse
rules and their interpreter) and spvalues.py (JAX's buffer-reference form: `SparsifyEnv`,
`SparsifyValue`, `sparsify_raw`, ...). A name is looked up in them in that order.

    >>> sparsify_raw is jxkernel.api.sparse.spvalues.sparsify_raw
    True
"""
import jxkernel  # noqa: F401  (the example's)

from ....core.lazy_names import names_of
from ....api.sparse import spvalues as _spvalues, transform as _transform
from ....api.sparse.spvalues import *  # noqa: F401,F403
from ....api.sparse.transform import *  # noqa: F401,F403

__getattr__, __dir__ = names_of(__name__, (_transform, _spvalues), globals())
