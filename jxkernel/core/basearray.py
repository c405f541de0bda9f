"""The abstract type of jxkernel arrays, `jax.Array`, as JAX's `jax._src.basearray`.

It lives in `core` so that every layer can name it without importing the package root;
the concrete array classes register themselves (device arrays in `xla.array`, tracers in
`core.trace`, typed keys in `random.keys`).

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> isinstance(jnp.ones(2), jax.Array), isinstance(1.0, jax.Array)
    (True, False)
"""
import abc


class Array(abc.ABC):
    """The type of jxkernel arrays, as `jax.Array`: device arrays, and the tracers standing for
    them inside transformations (so `isinstance(x, jax.Array)` holds in traced code too)."""
    __slots__ = ()


Array.__module__ = "jxkernel"    # users see `jxkernel.Array`, as JAX shows `jax.Array`
