"""Control flow run as Python under `jax.disable_jit()`, as JAX runs it: cond and switch call
the branch their concrete index picks, scan and while_loop loop in Python over concrete
values, so a print or a breakpoint in a body sees each iteration's values.

    >>> with jax.disable_jit():
    ...     lax.scan(lambda c, x: (c + x, c + x), 0, jnp.arange(3))[1]
    Array([0, 1, 3], dtype=int32)
"""
from __future__ import annotations

from ..core.avals import get_aval
from ..core.basearray import Array
from ..core.config import config
from ..core.trace import Tracer
from ..tree_util import tree_map
from .conversion import _convert_element_type
from .shapes import concatenate, expand_dims
from .slicing import index_in_dim


def disabled() -> bool:
    """Whether jit is disabled (jax.disable_jit): control flow then runs as Python."""
    return bool(config.jax_disable_jit)


def concrete(x):
    """x's value where it is known now (an Array, a NumPy or Python value, a tracer over one:
    jvp's), else None; JAX's core.to_concrete_value."""
    return x.to_concrete_value() if isinstance(x, Tracer) else x


def asarray(x):
    """x as an Array (a Python scalar weakly typed), as JAX's lax.asarray: a loop's carry of
    NumPy arrays is then never changed in place by the body's `+=`."""
    if isinstance(x, (Array, Tracer)):
        return x
    aval = get_aval(x)
    return _convert_element_type(x, aval.dtype, aval.weak_type)


def scan(f, init, xs, length: int, reverse: bool):
    """(carry, stacked ys) of `f` called in Python on each slice of `xs`."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because the "
                         "output type is unknown.")
    carry, ys = init, []
    steps = range(length - 1, -1, -1) if reverse else range(length)
    for i in steps:
        carry, y = f(carry, tree_map(lambda x: index_in_dim(x, i, keepdims=False), xs))
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, tree_map(lambda *leaves: concatenate([expand_dims(y, (0,)) for y in leaves],
                                                       0), *ys)


def while_loop(cond_fun, body_fun, init_val):
    """The final value of a Python while loop. Raises ConcretizationTypeError where
    `cond_fun` gives no concrete answer (under vmap): the caller then traces the loop, as
    JAX falls back to its primitive."""
    val = tree_map(asarray, init_val)
    while cond_fun(val):
        val = tree_map(asarray, body_fun(val))
    return val
