"""Naming what a function traces, as JAX's `named_call` and `named_scope`: the equations
traced inside carry the name, which the HLO's location metadata shows (`jit(f)/layer1/sin`,
XLA's op_name; jaxprs print as JAX's, without it). The name stack itself is
core/name_stack.py's. Re-exported by jxkernel/__init__.
"""
from __future__ import annotations

import contextlib
import functools

from ..core.name_stack import name_scope
from ..core.traceback_util import api_boundary

__all__ = ["named_call", "named_scope"]


@api_boundary
def named_call(fun, *, name: str | None = None):
    """`fun`, to be traced under the name `name` (default: its __name__): its equations are
    named under it, which only the HLO location metadata shows (`jit(f)/layer1/sin`, XLA's
    op_name; jaxprs do not print it), as in JAX.

    >>> named_call(jnp.sin, name="layer1")(0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    name = getattr(fun, "__name__", "fun") if name is None else name
    if not isinstance(name, str):
        raise TypeError(f"named_call name argument must be a string, got {name!r}")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with name_scope(name):
            return fun(*args, **kwargs)
    return named


def named_scope(name: str):
    """``with named_scope("block"):`` names the operations traced inside (`jit(f)/block/sin` in
    the HLO's op_name); jaxprs print as JAX's, which do not show it. A name that is no string
    is refused here, where it is given, as JAX's is."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    return _named_scope(name)


@contextlib.contextmanager
def _named_scope(name: str):
    # a generator's context manager, so that `@named_scope("layer")` decorates a function too
    with name_scope(name):
        yield
