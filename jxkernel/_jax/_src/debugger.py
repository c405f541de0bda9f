"""jxkernel._src.debugger, as jax._src.debugger: `breakpoint`, jax.debug.breakpoint (JAX's
tests call it from here with `stdin=`/`stdout=` files; jxkernel/debug.py holds it, its text
debugger is jxkernel/views/debugger.py).

    >>> breakpoint.__module__
    'jxkernel.debug'
"""
from ...debug import breakpoint  # noqa: F401,A004
