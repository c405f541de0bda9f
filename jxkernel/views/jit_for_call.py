"""The jit a view makes of a user's plain function to trace one call as jit would: explain's
(views/call_explanation.py) and %jxtraced's (notebook/funcview.py), each with its own rule for
which arguments are static. A jitted function keeps its own statics.
"""
from __future__ import annotations

import functools

from ..transforms.jit import Jitted, jit

__all__ = ["jit_for_call"]


def jit_for_call(f, args, kwargs, is_static) -> tuple:
    """(jit of f, dynamic kwargs) that trace `f(*args, **kwargs)` as jit would, each argument
    static where `is_static(value)` says (a view's rule: explain's, %jxtraced's); a jitted
    `f` keeps its own statics. Static keywords are bound here, as jit cannot always map
    names to positions (`**kwargs`).

        >>> def scale(x, how, *, by):
        ...     return x * by if how == "times" else x + by
        >>> jitted, dyn = jit_for_call(scale, (jnp.ones(2), "times"), {"by": 3.0},
        ...                            lambda v: isinstance(v, str))
        >>> jitted(jnp.ones(2), "times", **dyn)
        Array([3., 3.], dtype=float32)
    """
    if isinstance(f, Jitted):
        return f, kwargs
    static = tuple(i for i, a in enumerate(args) if is_static(a))
    static_kw = {k: v for k, v in kwargs.items() if is_static(v)}
    if static_kw:
        bound = functools.wraps(f)(functools.partial(f, **static_kw))
        bound.__name__ = getattr(f, "__name__", type(f).__name__)   # (as jit(f) names f)
        f = bound
    return jit(f, static_argnums=static), {k: v for k, v in kwargs.items() if k not in static_kw}
