"""jxkernel.extend.core, as jax.extend.core: the jaxpr IR and primitives, for writing
interpreters of jaxprs and primitives of one's own.

The classes are the very ones `make_jaxpr` builds, so `type(v) is Literal` and
`isinstance(eqn, JaxprEqn)` hold on what it returns:

    >>> closed = jax.make_jaxpr(lambda x: jnp.exp(x) * 2.0)(jnp.ones(3))
    >>> eqn = closed.jaxpr.eqns[-1]
    >>> eqn.primitive, [type(v).__name__ for v in eqn.invars]
    (mul, ['Var', 'Literal'])
    >>> jaxpr_as_fun(closed)(jnp.zeros(3))
    [Array([2., 2., 2.], dtype=float32)]
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from ....core.avals import ShapedArray, dim_inserted, dim_removed
from ....core.avals import valid_jaxtype  # noqa: F401
from ....core.check import JaxprTypeError, check_jaxpr  # noqa: F401
from ....core.avals import AbstractToken, Token  # noqa: F401
from ....core.errors import ConcretizationTypeError, InconclusiveDimensionOperation  # noqa: F401
from ....core.interpret import public_eval_jaxpr
from ....core.ir import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var,  # noqa: F401
                         jaxpr_params)
# effects allowed in the bodies of cond, scan and while_loop (core/ir.py checks them)
from ....core.ir import control_flow_allowed_effects  # noqa: F401
from ....core.primitive import Effect, EffectTypeSet, Primitive  # noqa: F401
from ....core.staging import DebugInfo, JaxprTrace  # noqa: F401
from ....core.trace import (Trace, Tracer, concrete_or_error, current_trace,  # noqa: F401
                            eval_trace, set_current_trace)
from ....core.axis_env import axis_names, visible_axes
from ....core.partial_eval import PartialEvalTrace
from ....core.literals import TypedNdArray
from ....core import dtypes as _dtypes
from ....transforms.ad_util import float0
from ....transforms.batching import BatchTrace
from ....transforms.call_primitive import CallPrimitive, call_impl  # noqa: F401
from . import primitives  # noqa: F401


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr, *args):
    """`closed_jaxpr` as a Python function returning the list of its outputs (evaluated by
    the current trace, so it can be jitted, differentiated and vmapped); a literal output as
    its value (a TypedFloat), as JAX's."""
    return functools.partial(public_eval_jaxpr, closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)


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


def primal_dtype_to_tangent_dtype(primal_dtype) -> np.dtype:
    """float0 for integer and boolean primals (they have no tangents), else the same dtype."""
    dtype = np.dtype(primal_dtype)
    return float0 if dtype == np.bool_ or _dtypes.issubdtype(dtype, np.integer) else dtype


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
    """The aval of one slice of `aval` along `axis` (of length `size`), as vmap sees it."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped_aval: axis {axis} of {aval.str_short(True)} has size "
                         f"{aval.shape[axis]}, not {size}")
    return dim_removed(aval, axis)


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
    """`aval` with an axis of length `size` inserted at `axis`, as vmap's results have."""
    if axis is None:
        return aval
    return dim_inserted(aval, axis, size)


# ------------------------------------------------------------------ effects
Effects = set
no_effects: frozenset = frozenset()


# ------------------------------------------------------------------ traces
class OpaqueTraceState:
    """Which trace is current, compared by identity and nothing else (Flax checks that a
    module is used under the trace it was made in)."""
    __slots__ = ("_trace_ref", "convention")

    def __init__(self, trace, convention):
        self._trace_ref, self.convention = weakref.ref(trace), convention

    def __eq__(self, other):
        # weakrefs compare their live referents, and after the trace is gone are equal only
        # if the same weakref (CPython hands out one per object): a state taken under a trace
        # stays equal to another taken under it, as in JAX
        return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref

    def __hash__(self):
        return hash(self._trace_ref)

    def __repr__(self):
        return f"OpaqueTraceState({self._trace_ref()!r})"


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
    """The current trace, as an opaque value that is equal only to another taken under it.

    >>> get_opaque_trace_state() == get_opaque_trace_state()
    True
    >>> outer = get_opaque_trace_state()
    >>> jax.jit(lambda x: get_opaque_trace_state() == outer)(1.0)
    Array(False, dtype=bool)
    """
    return OpaqueTraceState(current_trace(), convention)


def find_top_trace(xs) -> Trace:
    """The innermost trace among the tracers in `xs` (a flat sequence), else the current one."""
    traces = [x._trace for x in xs if isinstance(x, Tracer)]
    return max(traces, key=lambda t: t.level) if traces else current_trace()


def take_current_trace():
    """``with take_current_trace() as t:`` the current trace, with the evaluation trace
    current inside the block (so a rule can bind on its parent explicitly)."""
    return _TakeCurrentTrace()


class _TakeCurrentTrace:
    def __enter__(self):
        self.trace = current_trace()
        self.inner = set_current_trace(eval_trace)
        self.inner.__enter__()
        return self.trace

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
    """Whether some enclosing trace is a vmap's (JAX's: a BatchTrace on the trace stack).

    >>> jax.vmap(lambda x: x + unsafe_am_i_under_a_vmap_DO_NOT_USE())(jnp.zeros(2))
    Array([1., 1.], dtype=float32)
    """
    t = current_trace()
    while t is not None:
        if isinstance(t, BatchTrace):
            return True
        t = t.parent
    return False


def nonempty_axis_env_DO_NOT_USE() -> bool:
    """Whether any named axis is bound here (vmap's axis_name, pmap's, shard_map's mesh)."""
    return bool(visible_axes())


def unsafe_get_axis_names_DO_NOT_USE() -> list:
    """The named axes bound here, outermost first (JAX's axis env's order)."""
    return axis_names()


# the host values JAX takes as arrays (jax._src.abstract_arrays.array_types): NumPy arrays,
# JAX's typed ones, and NumPy's scalars of every dtype JAX knows
array_types: set = {TypedNdArray, np.ndarray, np.int8, np.int16, np.int32, np.int64, np.uint8,
                    np.uint16, np.uint32, np.uint64, np.complex64, np.complex128, np.bool_,
                    np.longlong, np.intc} | {
    d.type for d in (*_dtypes.INTN_DTYPES, *_dtypes.FLOAT_DTYPES)}


class TraceTag:
    """What identifies a transformation's traces in JAX's caches; every tag is equal to every
    other (JAX's own comment: the transformations' caches stay right all the same)."""

    def __hash__(self):
        return hash(TraceTag)

    def __eq__(self, other):
        return isinstance(other, TraceTag)


def gensym():
    """JAX's: the Var class, made new variables with (`gensym()(aval)`)."""
    return Var


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
    """Whether some enclosing trace stages a jaxpr (jit, make_jaxpr, a control-flow body);
    not grad's linearization, which JAX does with traces of other kinds, nor a shard_map
    body staged under vmap or grad (JAX runs those eagerly)."""
    t = current_trace()
    while t is not None:
        if isinstance(t, JaxprTrace) and not isinstance(t, PartialEvalTrace) and \
                not getattr(t, "shard_map_body", False):
            return True
        t = t.parent
    return False
