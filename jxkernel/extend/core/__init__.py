"""jxkernel.extend.core, as jax.extend.core: the jaxpr IR and primitives, for writing
interpreters of jaxprs and primitives of one's own.

The classes are the very ones `make_jaxpr` builds, so `type(v) is Literal` and
`isinstance(eqn, JaxprEqn)` hold on what it returns:

    >>> closed = jxkernel.make_jaxpr(lambda x: jnp.exp(x) * 2.0)(jnp.ones(3))
    >>> eqn = closed.jaxpr.eqns[-1]
    >>> eqn.primitive, [type(v).__name__ for v in eqn.invars]
    (mul, ['Var', 'Literal'])
    >>> jaxpr_as_fun(closed)(jnp.zeros(3))
    [Array([2., 2., 2.], dtype=float32)]
"""
from __future__ import annotations

import functools

import numpy as np

from ...core.avals import ShapedArray, get_aval
from ...core.check import JaxprTypeError, check_jaxpr  # noqa: F401
from ...core.errors import ConcretizationTypeError
from ...core.interpret import eval_jaxpr
from ...core.ir import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var, jaxpr_params  # noqa: F401
from ...core.primitive import Primitive  # noqa: F401
from ...core.trace import Tracer
from ...transforms.ad_util import float0
from . import primitives  # noqa: F401


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr, *args):
    """`closed_jaxpr` as a Python function returning the list of its outputs (evaluated by
    the current trace, so it can be jitted, differentiated and vmapped)."""
    return functools.partial(eval_jaxpr, closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects, source_info=None, ctx=None):
    """An equation `outvars = primitive[params] invars`. jxkernel tracks no effects, so an
    equation with effects cannot be built here."""
    if effects:
        raise NotImplementedError(f"new_jaxpr_eqn: jxkernel does not track effects; got "
                                  f"effects={effects!r} for primitive '{primitive}'. Pass an "
                                  f"empty set.")
    return JaxprEqn(invars, outvars, primitive, params, source_info)


def jaxprs_in_params(params: dict):
    """The Jaxprs held by an equation's params (a ClosedJaxpr gives its jaxpr)."""
    for found in jaxpr_params(params):
        yield found.jaxpr if isinstance(found, ClosedJaxpr) else found


def subjaxprs(jaxpr: Jaxpr):
    """The Jaxprs nested one level down in `jaxpr`'s equations (cond branches, scan bodies)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def valid_jaxtype(x) -> bool:
    """Whether `x` can be an argument of a transformed function (an array or a scalar)."""
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


def primal_dtype_to_tangent_dtype(primal_dtype) -> np.dtype:
    """float0 for integer and boolean primals (they have no tangents), else the same dtype."""
    dtype = np.dtype(primal_dtype)
    return float0 if dtype == np.bool_ or np.issubdtype(dtype, np.integer) else dtype


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
    """The aval of one slice of `aval` along `axis` (of length `size`), as vmap sees it."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped_aval: axis {axis} of {aval.str_short()} has size "
                         f"{aval.shape[axis]}, not {size}")
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
    """`aval` with an axis of length `size` inserted at `axis`, as vmap's results have."""
    if axis is None:
        return aval
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def concrete_or_error(force, val, context: str = ""):
    """`force(val)` (or `val` when `force` is None) for a concrete value; a traced value
    without one raises ConcretizationTypeError mentioning `context`."""
    if isinstance(val, Tracer):
        concrete = val.to_concrete_value()
        if concrete is None:
            raise ConcretizationTypeError(val, f"{context}\n" if context else "")
        val = concrete
    return val if force is None else force(val)
