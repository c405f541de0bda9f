"""jxkernel.nn: neural-network functions (activations, softmax, one_hot, ...) as jax.nn.

    >>> import jxkernel.nn as nn
    >>> nn.gelu(jnp.array([0.0, 1.0]))
    Array([0.      , 0.841192], dtype=float32)
"""
from .functions import *  # noqa: F401,F403
from .functions import __all__  # noqa: F401
