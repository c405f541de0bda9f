"""jxkernel.extend.ifrt_programs, as jax.extend.ifrt_programs: jaxlib's IFRT program
constructors (`make_hlo_program`, `make_colocated_python_program`, `make_plugin_program`...),
the very module. Orbax imports it at import time, for its Pathways plugin programs; jxkernel's
CPU client compiles none of them (jxkernel's colocated_python runs its functions in this
process).

    >>> ifrt_programs.__name__
    'jaxlib._jax.ifrt_programs'
"""
from ...xla.client import ifrt_programs  # noqa: F401
