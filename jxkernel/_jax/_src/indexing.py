"""jxkernel._src.indexing, as jax._src.indexing: `Slice` and `ds`/`dslice` (jxkernel.numpy.dslice
defines them; `jax.ds` is `ds`).

    >>> from jxkernel._src.indexing import Slice, ds
    >>> ds(2, 3) == Slice(2, 3, 1)
    True
"""
from ...numpy.dslice import Slice, ds, dslice  # noqa: F401
