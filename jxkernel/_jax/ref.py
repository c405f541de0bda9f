"""jxkernel.ref, as jax.ref: mutable array references and their functional forms.

    >>> r = new_ref(jnp.arange(3)); addupdate(r, 1, 10); swap(r, 0, 5), freeze(r)
    (Array(0, dtype=int32), Array([ 5, 11,  2], dtype=int32))
"""
from ..api.state import (AbstractRef, Ref, addupdate, empty_ref, free_ref,  # noqa: F401
                        freeze, get, new_ref, set, swap)

__all__ = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
           "new_ref", "set", "swap"]
