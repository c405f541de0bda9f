"""jxkernel._src.lax, as jax._src.lax: JAX's private home of lax, which its primitives
guide imports (`from jax._src.lax import lax`), which, as JAX's package does, answers lax's
operations and primitives themselves (JAX's test helpers read `lax.add`, `lax.reduce_max_p`
from it), and whose `linalg` JAX's linalg tests import (`from jax._src.lax import linalg as
lax_linalg`): jxkernel.lax.linalg itself, its private names included.

    >>> from jxkernel._src import lax as private_lax
    >>> private_lax.reduce_max_p is lax.reduce_max_p
    True
    >>> from jxkernel._src.lax import linalg
    >>> linalg.__name__
    'jxkernel.lax.linalg'
"""
import importlib
import types

from .... import lax as _lax
from ....core.lazy_names import module_aliases

_ALIASES = module_aliases(__name__, {"linalg": "jxkernel.lax.linalg"})


def __getattr__(name):
    """lax's operation or primitive `name`; never one of lax's submodules, so that this
    package's own submodules (`jax._src.lax.utils`, ...) are the ones imported by name."""
    if name in _ALIASES:                 # `linalg`, read as an attribute before any import
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(_lax, name, None)
    if value is None or isinstance(value, types.ModuleType) or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
