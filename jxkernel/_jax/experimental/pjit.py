"""jxkernel.experimental.pjit, as jax.experimental.pjit in JAX 0.10.2: only `pjit`, deprecated
for `jit` (reading it warns, in JAX's words): jxkernel._src.pjit's pjit, `jit` made to take the
mesh of a `with mesh:` block (its None shardings and bare PartitionSpecs), as JAX's.

    >>> from jxkernel._jax.experimental import pjit
    >>> pjit.pjit(lambda x: x * 2)(3)          # (with JAX's DeprecationWarning, once)
    Array(6, dtype=int32, weak_type=True)
"""
from .._src.pjit import pjit as _pjit
from .._src.deprecations import deprecation_getattr as _deprecation_getattr

_deprecations = {
    "pjit": ("jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead.",
             _pjit),
}
__getattr__ = _deprecation_getattr(__name__, _deprecations)
