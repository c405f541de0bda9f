"""Partial evaluation: run what is known now, stage what is not.

`PartialEvalTrace` is a staging trace whose own tracers are the *unknown*
values; everything else is known. A primitive whose inputs are all known runs
at once on the parent trace; one with an unknown input is recorded, its known
inputs becoming constvars (the *residuals*). Linearization is JVP nested inside
this trace with the tangents unknown: the primal computation runs, the tangent
computation becomes a linear jaxpr.

    known_jaxpr, unknown_jaxpr, out_unknowns, n_res = partial_eval_jaxpr(jaxpr, [False, True])
"""
from __future__ import annotations

import contextlib

from .interpret import eval_jaxpr
from .ir import ClosedJaxpr
from .lru import TRACES, WeakLRU
from .primitive import partial_eval_rules
from . import staging
from .staging import JaxprTrace, convert_constvars_to_invars, trace_to_jaxpr
from .trace import Tracer, new_trace, set_current_trace


class JaxprTracer(staging.JaxprTracer):
    """An unknown value of partial evaluation (JAX's `pe.JaxprTracer`, whose name and text
    JAX's primitives guide tells apart from jit's: `Traced<~float32[]:JaxprTrace>`)."""
    __slots__ = ()

    def __repr__(self):
        return f"Traced<{self._aval}:JaxprTrace>"

    def _short_repr(self):          # JAX's Tracer default, where jit's says JitTracer(...)
        return f"JaxprTracer<{self._aval}>"


class PartialEvalTrace(JaxprTrace):
    tracer_type = JaxprTracer
    forwards = False        # JAX's pe.JaxprTrace stages an identity broadcast_in_dim too
    stages = False          # grad's linearize: its known part runs now (eager grad
    #                         prints on every call, as JAX's)

    staging_known = False       # set by `staged`: known operations staged as unknown ones

    def is_unknown(self, x) -> bool:
        return type(x) is JaxprTracer and x._trace is self and x._var is not None

    @contextlib.contextmanager
    def staged(self):
        """Within: every operation is staged, known inputs or not (a rule's tangent zeros
        made with the tangent computation, as JAX's linearize rules make them: scan's zero
        carry tangent comes after the forward scan)."""
        before, self.staging_known = self.staging_known, True
        try:
            yield
        finally:
            self.staging_known = before

    def process_primitive(self, prim, args, params):
        if not self.staging_known and not any(self.is_unknown(x) for x in args):
            with set_current_trace(self.parent):
                return prim.bind(*args, **params)
        special = partial_eval_rules.get(prim)
        if special is not None:
            return special(self, args, params)
        return super().process_primitive(prim, args, params)

    def stage_whole(self, prim, args, params):
        """Record `prim` as one unknown equation (no known/unknown split)."""
        return JaxprTrace.process_primitive(self, prim, args, params)

    def describe_self(self):
        return "linearization (partial evaluation)"


_split_cache = WeakLRU(TRACES)   # (closed, (unknowns, instantiate)) -> the split, weakly by closed


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns, instantiate=None) -> tuple:
    """Split `closed` by which inputs are unknown.

    Returns (known_jaxpr, unknown_jaxpr, out_unknowns, num_residuals):
    known_jaxpr maps the known inputs to the known outputs followed by the residuals;
    unknown_jaxpr maps residuals followed by the unknown inputs to the unknown outputs.
    Outputs flagged in `instantiate` are made unknown even if they are known (their value
    becomes a residual), so that several jaxprs can be split alike (cond branches, loops).
    """
    n_out = len(closed.out_avals)
    force = tuple(instantiate) if instantiate is not None else (False,) * n_out
    key = (closed, (tuple(unknowns), force))
    found = _split_cache.get(key)
    if found is not None:
        return found
    known_avals = [a for a, u in zip(closed.in_avals, unknowns) if not u]
    unknown_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]
    result = {}

    def known_fun(*known_args):
        with new_trace(PartialEvalTrace) as pe:
            unknown_args = iter([pe.new_arg(a) for a in unknown_avals])
            known_iter = iter(known_args)
            args = [next(unknown_args) if u else next(known_iter) for u in unknowns]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
            out_unknowns = [pe.is_unknown(o) or f for o, f in zip(outs, force)]
            unknown_closed = pe.to_jaxpr([o for o, u in zip(outs, out_unknowns) if u])
        unknown_jaxpr, residuals = convert_constvars_to_invars(unknown_closed)
        result.update(unknown=unknown_jaxpr, out_unknowns=out_unknowns, n_res=len(residuals))
        return [o for o, u in zip(outs, out_unknowns) if not u] + residuals

    known_jaxpr = trace_to_jaxpr(known_fun, known_avals)
    found = (known_jaxpr, result["unknown"], result["out_unknowns"], result["n_res"])
    if not any(isinstance(c, Tracer) for c in closed.consts):
        _split_cache[key] = found
    return found
