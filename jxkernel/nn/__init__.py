"""jxkernel.nn: neural-network functions (activations, softmax, one_hot, attention, ...) and
weight initializers (jxkernel.nn.initializers), as jax.nn.

    >>> import jxkernel.nn as nn
    >>> nn.gelu(jnp.array([0.0, 1.0]))
    Array([0.      , 0.841192], dtype=float32)
"""
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .attention import dot_product_attention  # noqa: F401
from .scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul  # noqa: F401
from ..numpy import tanh  # noqa: F401
from ..core.lazy_names import lazy_names as _lazy_names

__all__ = [*_functions_all, "dot_product_attention", "get_scaled_dot_general_config",
           "scaled_dot_general", "scaled_matmul", "tanh", "initializers"]

# jax.nn.initializers loads on first use: it needs jax.random, the activations do not
__getattr__, __dir__ = _lazy_names(__name__, globals(), {"initializers": (".initializers", None)})
