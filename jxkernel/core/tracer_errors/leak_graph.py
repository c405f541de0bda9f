"""The tracers a leak keeps alive, as JAX's leak checker lists them for a jit's trace.

In JAX each staged tracer holds the equation that made it, and the equation its operands
(`<TracingEqn> is referred to by <DynamicJaxprTracer>`), so a leaked tracer keeps every
tracer it was computed from alive: `jax.checking_leaks()` lists them all, the arguments and
each literal operand among them. jxkernel's tracers hold no equation (their operands are
garbage once recorded, which keeps tracing light); the leak checker walks the trace's
equations instead and lists the same values with the same chains of holders, each value
that has no tracer left named by the id of the jaxpr atom standing for it:

    >>> saved = []
    >>> def f(x):
    ...     saved.append(jnp.sin(x) * 3)
    ...     return x
    >>> with jax.checking_leaks():
    ...     try:
    ...         jax.jit(f)(1.0)
    ...     except Exception as e:
    ...         print([line for line in str(e).splitlines() if line.startswith("JitTracer")])
    ['JitTracer(~float32[])', 'JitTracer(~float32[])', 'JitTracer(~float32[])', 'JitTracer(~float32[])']

(the product, the literal 3, the sine, the argument x). Newest first, as JAX lists a chain;
where values fan out (one used twice) JAX's order follows its garbage collector's lists, which
this does not reproduce: the same values are listed, maybe in another order.
"""
from __future__ import annotations

from ..errors import aval_text, jax_class_name
from ..ir import Literal, Var
from .origin import arguments_text


def listed(trace, held: list) -> list[tuple[str, str, list]]:
    """(repr, origin, holder lines) for each tracer alive: `held`'s (tracer, its holder lines,
    found by the garbage collector), then everything their equations keep alive."""
    producer = {v: k for k, eqn in enumerate(trace.eqns) for v in eqn.outvars}
    nodes = {}                                  # key -> (atom, consumer (eqn index) or None)
    paths = {}                                  # key of a held tracer -> its tracer, lines
    for tracer, path in held:
        key = _key_of(trace, producer, tracer._var) if tracer._var is not None else \
            (len(trace.eqns), 2, id(tracer))     # a known constant: made last, by nothing
        paths[key] = (tracer, path)
        nodes[key] = (tracer._var, None)
    _add_operands(trace, producer, nodes)
    return [_entry(trace, producer, nodes, paths, key) for key in sorted(nodes, reverse=True)]


def _key_of(trace, producer, var) -> tuple:
    """When a value's tracer was made, as a sortable key: the arguments first, then each
    equation's operands that are constants, then its results."""
    k = producer.get(var)
    if k is not None:
        return (k, 1, trace.eqns[k].outvars.index(var))
    if var in trace.invars:
        return (-1, 1, trace.invars.index(var))
    first = next((k for k, eqn in enumerate(trace.eqns) if var in eqn.invars), len(trace.eqns))
    return (first, 0, trace.eqns[first].invars.index(var) if first < len(trace.eqns) else 0)


def _add_operands(trace, producer, nodes) -> None:
    """Every operand of every equation that made a listed value, newest equation first, each
    kept by the newest equation that uses it (as JAX's leak checker follows one referrer)."""
    pending = sorted(k for k in {producer.get(atom) for atom, _ in nodes.values()
                                 if type(atom) is Var} if k is not None)
    done = set()
    while pending:
        k = pending.pop()                       # the newest equation not yet walked
        if k in done:
            continue
        done.add(k)
        for j, atom in enumerate(trace.eqns[k].invars):
            key = (k, 0, j) if type(atom) is Literal else _key_of(trace, producer, atom)
            if key not in nodes:
                nodes[key] = (atom, k)
                made_by = producer.get(atom) if type(atom) is Var else None
                if made_by is not None:
                    pending.append(made_by)
                    pending.sort()


def _entry(trace, producer, nodes, paths, key) -> tuple[str, str, list]:
    atom, _ = nodes[key]
    shown = paths[key][0]._short_repr() if key in paths else \
        f"JitTracer({aval_text(atom.aval)})"
    return shown, _origin(trace, atom), _holders(trace, producer, nodes, paths, key)


def _origin(trace, atom) -> str:
    """JAX's _origin_msg once the trace is finished (its equations gone): an argument is
    named, any other value only says which function was traced."""
    head = f"The error occurred while tracing {trace.describe_self()}. "
    names = trace.debug_info.arg_names if trace.debug_info else None
    if type(atom) is Var and atom in trace.invars and names is not None:
        i = trace.invars.index(atom)
        if i < len(names):
            return head + arguments_text([names[i]]) + "\n"
    return head + "\n"


def _holders(trace, producer, nodes, paths, key) -> list[str]:
    """The chain of holders, as JAX's _why_alive words it: up the equations to a held
    tracer, then its own holders."""
    if key in paths:
        return paths[key][1]
    atom, k = nodes[key]
    eqn = trace.eqns[k]
    name = jax_class_name(trace.tracer_type)
    operands = "tuple" if str(eqn.primitive) == "jit" else "list"   # (JAX's containers)
    at = [j for j, a in enumerate(eqn.invars) if a is atom] if type(atom) is Var else [key[2]]
    where = f"[{at[0]}]" if len(at) == 1 else " at indices " + ", ".join(map(str, at))
    result = next(v for v in eqn.outvars
                  if _key_of(trace, producer, v) in nodes)
    result_key = _key_of(trace, producer, result)
    result_id = id(paths[result_key][0]) if result_key in paths else id(result)
    return [f"<{name} {id(atom)}> is referred to by <{operands} {id(eqn.invars)}>{where}\n",
            f"<{operands} {id(eqn.invars)}> is referred to by <TracingEqn {id(eqn)}>\n",
            f"<TracingEqn {id(eqn)}> is referred to by <{name} {result_id}>\n"] + \
        _holders(trace, producer, nodes, paths, result_key)
