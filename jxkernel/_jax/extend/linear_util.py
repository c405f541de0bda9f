"""jxkernel.extend.linear_util, as jax.extend.linear_util: `WrappedFun`, `wrap_init` and
`Store`, defined with the transformations that use them (jxkernel/transforms/linear_util.py).

    >>> wrap_init(lambda x, y: x + y).call_wrapped(1, 2)
    3
"""
from ...transforms.linear_util import (EqualStore, Store, StoreException,  # noqa: F401
                                      WrappedFun, cache, merge_linear_aux, transformation,
                                      transformation2, transformation_with_aux,
                                      transformation_with_aux2, wrap_init)
