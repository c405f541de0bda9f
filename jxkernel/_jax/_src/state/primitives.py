"""jxkernel._src.state.primitives, as jax._src.state.primitives: the state primitives and JAX's
names for the functions binding them (jxkernel/api/state_primitives.py).

    >>> r = new_ref(jnp.arange(3.0)); ref_swap(r, 1, 7.0), r[...]
    (Array(1., dtype=float32), Array([0., 7., 2.], dtype=float32))
"""
from ....api.state import addupdate as ref_addupdate  # noqa: F401
from ....api.state import get as ref_get  # noqa: F401
from ....api.state import empty_ref_p, new_ref, new_ref_p  # noqa: F401
from ....api.state import set as ref_set  # noqa: F401
from ....api.state import swap as ref_swap  # noqa: F401
from ....api.state_primitives import addupdate_p, freeze_p, get_p, swap_p  # noqa: F401
