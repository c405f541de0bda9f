"""jxkernel._src.numpy, as jax._src.numpy: the private modules of JAX's jax.numpy that JAX's
own tests import (`indexing`, `fft`, `util`, `linalg`), and, as JAX's package does, jnp's
functions themselves (JAX's test harnesses read `jnp.take`, `jnp.triu` from it).

    >>> from jxkernel._src import numpy as private_jnp
    >>> private_jnp.take is jnp.take
    True
"""
import importlib
import types

from .... import numpy as _jnp
from ....core.lazy_names import module_aliases

_ALIASES = module_aliases(__name__, {"linalg": "jxkernel.numpy.linalg"})


def __getattr__(name):
    """jnp's function `name`; never one of jnp's submodules, so that this package's own
    submodules (`jax._src.numpy.indexing`, ...) are the ones imported by name."""
    if name in _ALIASES:                 # `linalg`, read as an attribute before any import
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(_jnp, name, None)
    if value is None or isinstance(value, types.ModuleType) or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
