"""jxkernel._src.abstract_arrays, as jax._src.abstract_arrays: `array_types`, the host types
JAX takes as arrays (jax.extend.core's, the one set: jxkernel/_jax/extend/core/).

    >>> import numpy as np
    >>> np.ndarray in array_types and np.float32 in array_types
    True
"""
from ..extend.core import array_types  # noqa: F401
