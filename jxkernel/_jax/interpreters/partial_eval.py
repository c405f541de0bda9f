"""jxkernel.interpreters.partial_eval, as jax.interpreters.partial_eval: tracing a function
with some inputs known and others unknown, running what depends only on known values and
staging the rest into a jaxpr (jxkernel's `core.partial_eval.PartialEvalTrace`).

    >>> from jxkernel.extend import linear_util as lu
    >>> f = lu.wrap_init(lambda x, y: [x * 2.0, jnp.sin(y)])
    >>> jaxpr, out_pvals, consts = trace_to_jaxpr_nounits(
    ...     f, [PartialVal.known(jnp.float32(3.0)), PartialVal.unknown(ShapedArray((), jnp.float32))])
    >>> out_pvals[0].get_known(), out_pvals[1].is_known()
    (Array(6., dtype=float32), False)
"""
from __future__ import annotations

from ...core.avals import ShapedArray, get_aval
from ...core.dce import dce_jaxpr_outputs as dce_jaxpr  # noqa: F401
from ...core.ir import ClosedJaxpr, Jaxpr  # noqa: F401
from ...core.partial_eval import JaxprTracer, PartialEvalTrace, partial_eval_jaxpr  # noqa: F401
from ...core.staging import convert_constvars_to_invars  # noqa: F401
# jit's tracer is JAX's DynamicJaxprTracer (it prints as JitTracer); partial evaluation's
# unknowns are JaxprTracer (printed Traced<...>), as in JAX
from ...core.staging import DynamicJaxprTracer  # noqa: E402
from ...core.trace import new_trace


class PartialVal(tuple):
    """(aval, None) for an unknown value of type aval, (None, value) for a known one."""

    def __new__(cls, xs: tuple):
        pv, const = xs
        if pv is not None and not isinstance(pv, ShapedArray):
            raise TypeError(f"PartialVal: the unknown side must be an abstract value "
                            f"(ShapedArray), got {type(pv).__name__} {pv!r}")
        return tuple.__new__(cls, xs)

    @classmethod
    def known(cls, const) -> "PartialVal":
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval) -> "PartialVal":
        return PartialVal((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self):
        """The known value, or None for an unknown one."""
        return self[1] if self[0] is None else None

    def get_aval(self):
        """The abstract value, known or not."""
        pv, const = self
        return get_aval(const) if pv is None else pv


def _known_value(trace, x):
    """The value of a known output: a constant the trace folded, or a value of an outer trace."""
    if type(x) is trace.tracer_type and x._trace is trace:
        return x.const
    return x


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False) -> tuple:
    """Run `fun` (a WrappedFun over a flat list) with the known `pvals` as values and the
    unknown as tracers. Returns (jaxpr over the unknown inputs, taking its constants as
    constvars; one PartialVal per output; the constants). Outputs flagged in `instantiate`
    (a bool or one per output) are staged even when known."""
    with new_trace(PartialEvalTrace) as trace:
        args = [PartialVal(pv).get_known() if PartialVal(pv).is_known()
                else trace.new_arg(pv[0]) for pv in pvals]
        outs = list(fun.call_wrapped(*args))
        flags = [instantiate] * len(outs) if isinstance(instantiate, bool) else list(instantiate)
        unknown = [trace.is_unknown(o) or f for o, f in zip(outs, flags)]
        closed = trace.to_jaxpr([o for o, u in zip(outs, unknown) if u])
        out_pvals = [PartialVal.unknown(o.aval if trace.is_unknown(o) else get_aval(o)) if u
                     else PartialVal.known(_known_value(trace, o)) for o, u in zip(outs, unknown)]
    return closed.jaxpr, out_pvals, list(closed.consts)
