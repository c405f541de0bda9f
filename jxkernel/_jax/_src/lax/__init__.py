"""jxkernel._src.lax, as jax._src.lax: JAX's private home of lax, which its primitives
guide imports (`from jax._src.lax import lax`), and which, as JAX's package does, answers
lax's operations and primitives themselves (JAX's test helpers read `lax.add`,
`lax.reduce_max_p` from it).

    >>> from jxkernel._src import lax as private_lax
    >>> private_lax.reduce_max_p is lax.reduce_max_p
    True
"""
import types

from .... import lax as _lax


def __getattr__(name):
    """lax's operation or primitive `name`; never one of lax's submodules, so that this
    package's own submodules (`jax._src.lax.utils`, ...) are the ones imported by name."""
    value = getattr(_lax, name, None)
    if value is None or isinstance(value, types.ModuleType) or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
