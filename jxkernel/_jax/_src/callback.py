"""jxkernel._src.callback, as jax._src.callback: the callback primitives and their effects,
and `emit_python_callback`, which a library's lowering rule calls to run Python on the host
(jxkernel/lax/callbacks.py holds them all).

    >>> pure_callback_p.name, io_callback_p.name
    ('pure_callback', 'io_callback')
"""
from ...lax.callbacks import (emit_python_callback, io_callback, io_callback_p,  # noqa: F401
                              pure_callback, pure_callback_p)
from ...lax.io_effects import IOEffect, OrderedIOEffect  # noqa: F401
