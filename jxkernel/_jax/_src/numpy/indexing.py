"""jxkernel._src.numpy.indexing, as jax._src.numpy.indexing: `rewriting_take` (the function
behind `x[idx]`) and the `IndexingStrategy` that forces a static slice, a dynamic slice or a
gather (jxkernel.numpy.indexing defines both).

    >>> x = jnp.arange(6).reshape(2, 3)
    >>> rewriting_take(x, (1, slice(None)), strategy=IndexingStrategy.GATHER)
    Array([3, 4, 5], dtype=int32)
"""
from ....numpy.indexing import IndexingStrategy, rewriting_take  # noqa: F401
