"""fori_loop, map and associative_scan, built on scan, while_loop (which live in their own
modules) and slicing.

    >>> lax.fori_loop(0, 10, lambda i, acc: acc + i, 0)
    Array(45, dtype=int32, weak_type=True)
    >>> lax.map(jnp.sin, jnp.arange(3.))
    Array([0.        , 0.84147096, 0.9092974 ], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.traceback_util import api_boundary
from ..core.avals import get_aval
from ..core.lru import TRACES, WeakLRU
from ..core.trace import Tracer
from ..core.interpreter_primitives import typed_constant
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from ..transforms.batching import vmap
from . import _cf_python as python
from .conversion import _convert_element_type, convert_element_type
from .elementwise import add, bitwise_or, lt
from .shapes import canonicalize_axis, concatenate, reshape, rev
from .slicing import pad, slice_in_dim
from .scan import scan, scan_p  # noqa: F401
from .while_loop import while_loop, while_p  # noqa: F401


@api_boundary
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for i in [lower, upper). With static bounds this is a scan (so
    reverse-mode differentiable); with traced bounds a while_loop."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _index_dtype(lower, upper)
    lower_c, upper_c = _concrete_int(lower), _concrete_int(upper)
    if lower_c is not None and upper_c is not None:
        step = _wrapper(body_fun, _scan_step)
        # zero trips still run the scan, so the carry comes back as Arrays (as in JAX); the
        # index starts as a Python int, so it is weakly typed (c + i keeps c's dtype)
        length = max(upper_c - lower_c, 0)
        if length == 0 and python.disabled():
            return init_val         # (a scan run as Python has no zero-length form, as JAX's)
        (_, out), _ = scan(step, (lower_c, init_val), None, length=length, unroll=unroll or 1)
        return out
    if unroll not in (None, 1):
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    # a bound of the index dtype is kept as it is (a Python int stays weakly typed)
    lower, upper = [b if get_aval(b).dtype == dtype else convert_element_type(b, dtype)
                    for b in (lower, upper)]

    return while_loop(_below_upper, _wrapper(body_fun, _while_body),
                      (lower, upper, init_val))[2]


# One wrapper per body_fun, as JAX's `_fori_scan_body_fun` and `_fori_body_fun` (cached by the
# function): the loop's trace, cached by the function it traces (lax/_cf_bodies.trace_fun), is
# then reused by the next fori_loop over the same body_fun.
_wrappers = WeakLRU(TRACES)


def _wrapper(body_fun, make):
    found = _wrappers.get((body_fun, make))
    if found is None:
        found = make(body_fun)
        _wrappers[body_fun, make] = found
    return found


def _scan_step(body_fun):
    def step(loop_carry, _):           # (JAX's name: carry errors say "loop_carry[1]")
        i, val = loop_carry
        return (_next(i), body_fun(i, val)), None
    # its trace is told as body_fun's, its inputs ((i, val), None) by body_fun's names (JAX
    # traces its wrapper with body_fun's debug info)
    step._jx_traced_as = (body_fun, "lax.fori_loop", lambda path: (path[1].idx, path[2:]))
    return step


def _while_body(body_fun):
    def body(loop_carry):               # (JAX's name, as _scan_step's)
        i, hi, val = loop_carry
        return _next(i), hi, body_fun(i, val)
    # inputs ((i, upper, val),): the upper bound is none of body_fun's (JAX names it "")
    body._jx_traced_as = (body_fun, "lax.fori_loop",
                          lambda path: None if path[1].idx == 1 else
                          (min(path[1].idx, 1), path[2:]))
    return body


def _below_upper(state):
    return lt(state[0], state[1])


def _next(i):
    """i + 1 in i's own type, weak type included."""
    aval = get_aval(i)
    return add(i, _convert_element_type(1, aval.dtype, aval.weak_type))


def _concrete_int(x):
    """The bound as a Python int where it is known (int() of it: a float bound 5.0 counts as
    5, as in JAX, whose scan then counts with a Python int), else None."""
    if isinstance(x, (int, float, complex, np.number)):
        try:
            return int(x)
        except TypeError:               # a complex bound: no int, a while_loop (as JAX's)
            return None
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
    """The loop index's dtype: the bounds' common dtype, where a weakly typed bound (a Python
    int) takes the other's signed integer type, as in JAX.

    >>> _index_dtype(0, np.int16(3))
    dtype('int16')
    """
    lo, up = get_aval(lower), get_aval(upper)
    if lo.dtype == up.dtype:
        return lo.dtype
    if dtypes.is_signed(lo.dtype) and dtypes.is_signed(up.dtype):
        if lo.weak_type != up.weak_type:
            return up.dtype if lo.weak_type else lo.dtype
    raise TypeError(f"lower and upper arguments to fori_loop must have equal types, got "
                    f"{lo.dtype.name} and {up.dtype.name}")


@api_boundary
def map(f, xs, *, batch_size=None):
    """[f(x) for x in xs] stacked, as a scan (one compiled body, sequential). With
    `batch_size`, the scan runs vmap(f) over batches, and vmap(f) takes the remainder;
    `batch_size=0` is one whole batch (just vmap(f)), as in JAX."""
    if batch_size is None:
        return scan(lambda c, x: (c, f(x)), (), xs)[1]
    leaves, tree = tree_flatten(xs)
    n = get_aval(leaves[0]).shape[0]
    whole = n - n % batch_size if batch_size else 0
    parts = []
    if whole:
        grouped = tree_unflatten(tree, [reshape(slice_in_dim(x, 0, whole), (
            whole // batch_size, batch_size) + get_aval(x).shape[1:]) for x in leaves])
        ys = scan(lambda c, x: (c, vmap(f)(x)), (), grouped)[1]
        parts.append(tree_map(lambda y: reshape(y, (whole,) + get_aval(y).shape[2:]), ys))
    if whole < n:
        parts.append(vmap(f)(tree_unflatten(tree, [slice_in_dim(x, whole, n) for x in leaves])))
    if len(parts) == 1:
        return parts[0]
    return tree_map(lambda a, b: concatenate([a, b], 0), *parts)


@api_boundary
def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations [a, fn(a, b), fn(fn(a, b), c), ...] along `axis` of `elems`
    (a pytree of arrays), in O(log n) rounds of `fn` on whole slices; `fn` must be associative
    and elementwise over `axis`.

    >>> lax.associative_scan(jnp.add, jnp.arange(4))
    Array([0, 1, 3, 6], dtype=int32)
    """
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    leaves, tree = tree_flatten(elems)
    if not leaves:
        return elems
    axis = canonicalize_axis(axis, get_aval(leaves[0]).ndim)
    sizes = [get_aval(x).shape[axis] for x in leaves]
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[get_aval(x).shape for x in leaves]})")
    if reverse:
        leaves = [rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out = fn(tree_unflatten(tree, a), tree_unflatten(tree, b))
        return tree_flatten(out)[0]

    def every_other(xs, start, stop=None):
        return [slice_in_dim(x, start, stop, 2, axis) for x in xs]

    # The Blelloch recursion, in the same combination order as JAX (so float results agree
    # bit for bit): combine neighbouring pairs, scan that half-length sequence (the odd
    # prefixes), then each even prefix is an odd prefix combined with the next element.
    def prefix(xs):
        n = get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        odd = prefix(combine(every_other(xs, 0, -1), every_other(xs, 1)))
        left = odd if n % 2 else [slice_in_dim(o, 0, -1, 1, axis) for o in odd]
        even = combine(left, every_other(xs, 2))
        even = [concatenate([slice_in_dim(x, 0, 1, 1, axis), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = prefix(leaves)
    if reverse:
        out = [rev(x, (axis,)) for x in out]
    return tree_unflatten(tree, out)


def _interleave(evens, odds, axis):
    """e0 o0 e1 o1 ... along `axis`: each spread out by interior padding with zeros, then
    added (or-ed for bool), which is exact."""
    n_even, n_odd = get_aval(evens).shape[axis], get_aval(odds).shape[axis]
    zero = typed_constant(0, get_aval(evens).dtype)
    config_e = [(0, 0, 0)] * get_aval(evens).ndim
    config_o = list(config_e)
    config_e[axis] = (0, 1 if n_even == n_odd else 0, 1)
    config_o[axis] = (1, 0 if n_even == n_odd else 1, 1)
    join = bitwise_or if get_aval(evens).dtype == np.bool_ else add
    return join(pad(evens, zero, config_e), pad(odds, zero, config_o))
