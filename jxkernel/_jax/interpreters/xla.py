"""jxkernel.interpreters.xla, as jax.interpreters.xla: the three names JAX 0.10.2 left there.
`apply_primitive` runs a primitive eagerly (jxkernel._src.dispatch's).
`canonicalize_dtype_handlers` is the table, by type, of how jxkernel._src.dtypes'
`canonicalize_value` holds a value. `Backend` is jaxlib's client class, loaded on first access
as jaxlib is.

    >>> from jxkernel.interpreters import xla
    >>> from jxkernel import lax
    >>> xla.apply_primitive(lax.neg_p, 1.0)
    Array(-1., dtype=float32, weak_type=True)
"""
from .._src import lib as _lib     # light: its jaxlib modules load on first access
from .._src.dispatch import apply_primitive  # noqa: F401
from .._src.dtypes import canonicalize_value_handlers as canonicalize_dtype_handlers  # noqa: F401

__all__ = ["apply_primitive", "canonicalize_dtype_handlers", "Backend"]


def __getattr__(name):
    if name == "Backend":       # jaxlib's PJRT client class: jaxlib loads on first use only
        return _lib._jax.Client
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
