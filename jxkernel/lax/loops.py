"""fori_loop and map, built on scan and while_loop (which live in their own modules).

    >>> lax.fori_loop(0, 10, lambda i, acc: acc + i, 0)
    >>> lax.map(jnp.sin, jnp.arange(3.))
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import get_aval
from ..core.trace import Tracer
from ..tree_util import tree_flatten, tree_unflatten
from .conversion import convert_element_type
from .elementwise import add, lt
from .scan import scan, scan_p  # noqa: F401
from .while_loop import while_loop, while_p  # noqa: F401


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for i in [lower, upper). With static bounds this is a scan (so
    reverse-mode differentiable); with traced bounds a while_loop."""
    lower_c, upper_c = _concrete_int(lower), _concrete_int(upper)
    if lower_c is not None and upper_c is not None:
        dtype = _index_dtype(lower, upper)

        def step(carry, _):
            i, val = carry
            return (add(i, np.array(1, dtype)), body_fun(i, val)), None
        length = max(upper_c - lower_c, 0)
        if length == 0:
            return init_val
        (_, out), _ = scan(step, (np.array(lower_c, dtype), init_val), None, length=length,
                           unroll=unroll or 1)
        return out
    if unroll not in (None, 1):
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")
    dtype = _index_dtype(lower, upper)
    lower = convert_element_type(lower, dtype)
    upper = convert_element_type(upper, dtype)

    def cond_fun(state):
        return lt(state[0], state[1])

    def body(state):
        i, hi, val = state
        return add(i, np.array(1, dtype)), hi, body_fun(i, val)
    return while_loop(cond_fun, body, (lower, upper, init_val))[2]


def _concrete_int(x):
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else int(np.asarray(value))
    if hasattr(x, "shape") and not getattr(x, "shape", ()):
        try:
            return int(np.asarray(x))
        except TypeError:
            return None
    return None


def _index_dtype(lower, upper):
    ds = [get_aval(v).dtype for v in (lower, upper) if not isinstance(v, int)]
    return ds[0] if ds else dtypes.canonicalize_dtype(np.int64)


def map(f, xs, *, batch_size=None):
    """[f(x) for x in xs] stacked, as a scan (one compiled body, sequential)."""
    if batch_size is not None:
        from jxkernel.transforms.batching import vmap
        leaves, tree = tree_flatten(xs)
        n = get_aval(leaves[0]).shape[0]
        if n % batch_size:
            raise ValueError(f"lax.map batch_size={batch_size} must divide the leading axis {n}")
        from .shapes import reshape
        grouped = tree_unflatten(tree, [reshape(x, (n // batch_size, batch_size) + get_aval(x).shape[1:])
                                        for x in leaves])
        _, ys = scan(lambda c, x: (c, vmap(f)(x)), (), grouped)
        y_leaves, y_tree = tree_flatten(ys)
        return tree_unflatten(y_tree, [reshape(y, (n,) + get_aval(y).shape[2:]) for y in y_leaves])
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys
