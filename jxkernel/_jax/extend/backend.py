"""jxkernel.extend.backend, as jax.extend.backend: the backends (PJRT clients) started, and
the functions that start, name and clear them.

    >>> get_backend().platform
    'cpu'
    >>> "cpu" in backends()
    True

`clear_backends` waits for the side effects in flight and forgets every compiled program held
in memory; jxkernel keeps its one client per platform (JAX makes new ones), so its devices
and Arrays stay valid (jxkernel/api/runtime_state.py).
"""
from .._src.api import clear_backends  # noqa: F401
from .._src.compiler import get_compile_options  # noqa: F401
from .._src.interpreters.pxla import (clear_in_memory_compilation_cache,  # noqa: F401
                                      get_default_device)
from .._src.xla_bridge import (backend_xla_version, backends, get_backend,  # noqa: F401
                               register_backend_factory)
