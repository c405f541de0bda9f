"""jxkernel._src.deprecations, as jax._src.deprecations: a module's `__getattr__` for its
deprecated names. A name with an object warns (DeprecationWarning, JAX's message) and gives
it; a name whose deprecation is finished (None) raises AttributeError with the message. And
JAX's deprecations by id (`warn`, `accelerate`, `is_accelerated`), jxkernel's
core/deprecations.py."""
import functools
import warnings

# JAX's deprecations by id (warned, or raised once accelerated): jxkernel's registry
from ...core.deprecations import (accelerate, is_accelerated, register,  # noqa: F401
                                  unregister, warn)


def deprecation_getattr(module: str, deprecations: dict):
    """`__getattr__` for `module` over `deprecations`: name -> (message, object or None)."""

    @functools.cache
    def getattr(name):
        if name in deprecations:
            message, fn = deprecations[name]
            if fn is None:
                raise AttributeError(message)
            warnings.warn(message, DeprecationWarning, stacklevel=2)
            return fn
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return getattr
