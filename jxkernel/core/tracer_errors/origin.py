"""Where a staged value came from, in JAX's words (pe.DynamicJaxprTracer._origin_msg): the
sentence a tracer error adds after saying what went wrong.

A value that depends on the traced function's arguments names them; one that depends on
none (made from constants: `jnp.sin(2.0)` under jit is still a tracer) lists the operations
that made it one, each with the user's line:

    >>> def g(x):
    ...     return x if jnp.sin(2.0) > 0 else -x
    >>> try:
    ...     jax.jit(g)(1.0)
    ... except TypeError as e:
    ...     print(str(e).splitlines()[1][-65:])
    ...     print(str(e).splitlines()[3])
    This value became a tracer due to JAX operations on these lines:
      operation a:f32[] = sin 2.0:f32[]

Computed only when an error is raised: tracing pays nothing for it.
"""
from __future__ import annotations

from ..ir import Literal, Names, Var, pp_eqn
from ..trace import Tracer

_MAX_OPERATIONS = 5         # JAX shows at most 5, then says more are not shown


def _walk(trace, var) -> tuple[set, list]:
    """(the variables `var` depends on that no equation made: inputs, constants; the
    equations it depends on, in the trace's order)."""
    active, made = {var}, []
    for eqn in reversed(trace.eqns):
        out = [v for v in eqn.outvars if v in active]
        if out:
            active.difference_update(out)
            active.update(a for a in eqn.invars if type(a) is Var)
            made.append(eqn)
    return active, made[::-1]


def made_from_constants(trace, var) -> list:
    """The equations `var` depends on, in the order they were traced, when it depends on no
    input nor on a value an enclosing trace traced (a loop body's closed-over `x`); else []
    (for the error card's "where it came from" and the advice)."""
    active, made = _walk(trace, var)
    if any(v in active for v in trace.invars):
        return []
    closed_over = {v for v, value in trace.consts.values() if isinstance(value, Tracer)}
    return [] if active & closed_over else made


def progenitors(trace, var) -> tuple[list[int], list]:
    """(the positions of the trace's inputs `var` depends on, the equations JAX names as
    making it a tracer), as JAX's find_progenitors answers: when it depends on no input,
    every equation of the trace that takes a literal, or a constant `var` depends on. (JAX's
    own rule: an equation with a literal is named even where `var` does not depend on it.)"""
    active = _walk(trace, var)[0]
    inputs = [i for i, v in enumerate(trace.invars) if v in active]
    consts = active & {v for v, _ in trace.consts.values()}
    made_by = [eqn for eqn in trace.eqns
               if any(a in consts if type(a) is Var else type(a) is Literal for a in eqn.invars)]
    return inputs, made_by


def operation_text(eqn) -> str:
    """One equation as JAX's message prints it: types shown, its own variable names
    (`a:f32[] = mul b 3.0:f32[]`)."""
    return pp_eqn(eqn, Names(), 0)


def operations_text(eqns) -> str:
    """JAX's list of the operations that made a value a tracer, each with its line (the
    innermost user frame, as source_info_util.summarize)."""
    shown = [f"  operation {operation_text(eqn)}\n"
             f"    from line {eqn.source_info if eqn.source_info is not None else ''}"
             for eqn in eqns[:_MAX_OPERATIONS]]
    more = "\n\n(Additional originating lines are not shown.)" \
        if len(eqns) > _MAX_OPERATIONS else ""
    return ("This value became a tracer due to JAX operations on these lines:\n\n"
            + "\n\n".join(shown) + more)


def arguments_text(names: list[str]) -> str:
    """JAX's sentence naming the arguments a value depends on.

    >>> arguments_text(["x", "y", "z"])[-51:]
    'depends on the values of the arguments x, y, and z.'
    """
    if len(names) == 1:
        which = f"the argument {names[0]}"
    elif len(names) == 2:
        which = f"the arguments {names[0]} and {names[1]}"
    else:
        which = f"the arguments {', '.join(names[:-1])}, and {names[-1]}"
    return ("This concrete value was not available in Python because it depends on the "
            f"value{'s' if len(names) > 1 else ''} of {which}.")


def origin_text(trace, tracer) -> str:
    """The traced function, then the arguments `tracer` depends on or the operations that
    made it a tracer, as JAX words them; one paragraph ending in a newline."""
    head = f"The error occurred while tracing {trace.describe_self()}. "
    if tracer._var is None:                 # a known constant: nothing made it one
        return head + "\n"
    inputs, made_by = progenitors(trace, tracer._var)
    names = trace.debug_info.arg_names if trace.debug_info else None
    if inputs and names is not None:
        named = [names[i] for i in inputs if i < len(names)]
        return head + arguments_text(named) + "\n" if named else head + "\n"
    if not inputs and made_by:
        return head + operations_text(made_by) + "\n"
    return head + "\n"
