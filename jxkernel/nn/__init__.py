"""jxkernel.nn: neural-network functions (activations, softmax, one_hot, attention, ...) and
weight initializers (jxkernel.nn.initializers), as jax.nn.

    >>> import jxkernel.nn as nn
    >>> nn.gelu(jnp.array([0.0, 1.0]))
    Array([0.      , 0.841192], dtype=float32)
"""
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .attention import dot_product_attention  # noqa: F401
from ..numpy import tanh  # noqa: F401

__all__ = [*_functions_all, "dot_product_attention", "tanh", "initializers"]


def __getattr__(name):
    """`jax.nn.initializers` loads on first use: it needs jax.random, activations do not."""
    if name == "initializers":
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"initializers"})
