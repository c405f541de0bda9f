"""jxkernel._src.state.types, as jax._src.state.types: `Ref`, `AbstractRef` and their functions,
defined in jxkernel/api/state.py.

    >>> r = new_ref(jnp.zeros(2)); r[0] = 1.0; r[...]
    Array([1., 0.], dtype=float32)
"""
from ....api.state import (AbstractRef, Ref, addupdate, empty_ref, free_ref,  # noqa: F401
                          freeze, get, new_ref, set, swap)
from ....api.state_primitives import (AccumEffect, ReadEffect, RefEffect,  # noqa: F401
                                      WriteEffect)
