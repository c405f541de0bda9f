"""jxkernel._src.lax, as jax._src.lax: JAX's private home of lax, which its primitives
guide imports (`from jax._src.lax import lax`), and whose `linalg` JAX's linalg tests import
(`from jax._src.lax import linalg as lax_linalg`): jxkernel.lax.linalg itself, its private
names included.

    >>> from jxkernel._src.lax import linalg
    >>> linalg.__name__
    'jxkernel.lax.linalg'
"""
from ....core.lazy_names import module_aliases

module_aliases(__name__, {"linalg": "jxkernel.lax.linalg"})
