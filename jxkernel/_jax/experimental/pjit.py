"""jxkernel.experimental.pjit, as jax.experimental.pjit in JAX 0.10.2: only `pjit`, deprecated
for `jit` (reading it warns, in JAX's words), which it is: JAX's pjit is `jit` made to take
the mesh of a `with mesh:` block, as jxkernel's jit does.

    >>> from jxkernel._jax.experimental import pjit
    >>> pjit.pjit(lambda x: x * 2)(3)          # (with JAX's DeprecationWarning, once)
    Array(6, dtype=int32, weak_type=True)
"""
from ...transforms.jit import jit as _jit
from .._src.deprecations import deprecation_getattr as _deprecation_getattr

_deprecations = {
    "pjit": ("jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead.",
             _jit),
}
__getattr__ = _deprecation_getattr(__name__, _deprecations)
