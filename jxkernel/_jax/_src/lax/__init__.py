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
from .... import lax as _lax
from ....core.lazy_names import attributes_of, module_aliases

_ALIASES = module_aliases(__name__, {"linalg": "jxkernel.lax.linalg"})


__getattr__ = attributes_of(__name__, _lax, _ALIASES)
