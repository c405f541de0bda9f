"""jit over Refs (api/state.py), as JAX threads them through a jaxpr as effects.

A Ref the function closes over, or is passed, is kept by jit's trace (core/staging.py, the
"lift" policy): it is a const of the ClosedJaxpr holding the Ref, and its final value, when
written, one more output. A Ref argument is traced as a *stand-in*, a tracer of the same Ref
type (api/state.py's RefTracer: JAX's jit traces a Ref argument as a tracer) that remembers its
argument position (`_argument`), so that the compiled program serves
every call with Refs of those types, each call's own. Each call then passes the Refs' values
where their consts are, and writes what came out back into them:

    >>> counter = jax.new_ref(0)
    >>> @jax.jit
    ... def tick():
    ...     counter[...] += 1
    >>> tick(); tick(); counter
    Ref(2, dtype=int32)

A call compiled at the top level threads *every* Ref through, as JAX does: each Ref's buffer
is donated to the result holding its final value (for a Ref only read, its value unchanged), so
a call updates it in place (`x_ref.unsafe_buffer_pointer()` is the same after the call). That
is safe because a Ref's buffer is its own: `new_ref`, reading `ref[...]` and writing it whole
copy, as JAX's do (api/state_primitives.py).

JAX's errors for a Ref passed twice, returned, or both passed and closed over are here.
"""
from __future__ import annotations

import weakref

from ...core.errors import check_passed_once, ref_type  # noqa: F401 (jit.refs names them)
from ...core.interpret import eval_jaxpr
from ...core.ir import Jaxpr
from ...core.staging import is_ref, ref_get, ref_set, stands_for, trace_to_jaxpr
from ...tree_util import tree_flatten, tree_unflatten
from ...xla.array import HOST_READS
from ...xla.lowering import NeedsMesh


def ref_positions(leaves) -> tuple:
    """The indices of the Refs among a call's argument leaves."""
    return tuple(i for i, leaf in enumerate(leaves) if is_ref(leaf))


def where(jitted) -> str:
    """The jitted function as JAX's errors name it: "f at file.py:3"."""
    return f"{jitted._name} at {jitted._source_text()}" if jitted._source else jitted._name


def with_stand_ins(flat, leaves, avals, positions, made=None):
    """(`flat` over the leaves that are not Refs, their avals): the Refs among `leaves` are
    passed to `flat` as stand-ins (module docstring), each put in `made` by its position."""
    made = {} if made is None else made
    def fun(*arrays):
        # made in the trace: there a RefTracer, as JAX's jit traces a Ref argument as a tracer
        stand_ins = {i: type(leaves[i]).stand_in(leaves[i], i) for i in positions}
        made.update(stand_ins)
        arrays = iter(arrays)
        return flat(*[stand_ins[i] if i in stand_ins else next(arrays)
                      for i in range(len(avals))])
    return fun, [a for i, a in enumerate(avals) if i not in positions]


def traced(fun, leaves, avals, info, where: str, names):
    """jit's trace of the flat `fun`, the Refs made outside kept (core/staging.py's "lift"),
    the Refs among `leaves` traced as stand-ins, with JAX's errors for a Ref passed twice or
    passed and closed over. `info`'s argument names are the leaves'; `where`: "f at file:3"."""
    refs = ref_positions(leaves)
    if refs:
        check_passed_once(where, leaves, refs, names)
        made = {}
        fun, avals = with_stand_ins(fun, leaves, avals, refs, made)
        info = info._replace(arg_names=without_refs(info.arg_names, refs))
    reads = set()
    HOST_READS.append(reads)
    try:
        closed = trace_to_jaxpr(fun, list(avals), info, "lift")
    finally:
        HOST_READS.pop()
        if HOST_READS:                  # (a jit traced inside another's trace: its reads too)
            HOST_READS[-1].update(reads)
    _host_reads[closed] = HostReads(reads)
    _host_reads[closed].program = weakref.ref(closed)
    if refs:
        check_not_closed_over(where, closed, leaves, refs, names)
        _stand_ins[closed] = made
    return closed


class HostReads(frozenset):
    """The ids of the arrays whose values a trace's Python read (HOST_READS); `program`: a weak
    reference to that trace (ClosedJaxpr), whose literals and constants tell which Python
    numbers and NumPy arrays it holds (views/outside_values.py's in_program)."""
    program = None


# a jit's trace (ClosedJaxpr) -> the ids of the arrays whose values its Python read (HOST_READS)
_host_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def host_reads(closed) -> frozenset | None:
    """The ids of the arrays whose values `closed`'s trace read on the host (None: not known,
    a trace not made here)."""
    return _host_reads.get(closed)


# a jit's trace (ClosedJaxpr) -> its stand-ins for the Ref arguments, by argument position
_stand_ins: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def stand_for(closed, leaves) -> None:
    """Each stand-in of `closed`'s trace now stands for the Ref this call passes there
    (core/staging.py's `stands_for`): a custom_vjp's bwd, run after the trace ended, writes
    that Ref, where fwd returned the stand-in as a residual."""
    for i, stand_in in _stand_ins.get(closed, {}).items():
        stands_for[stand_in] = leaves[i]


def check_not_closed_over(where: str, closed, leaves, positions, names) -> None:
    """JAX's error for a Ref both passed and closed over."""
    for c in closed.consts:
        for i in positions:
            if c is leaves[i]:
                raise ValueError(f"when tracing {where} for jit, a mutable array reference of "
                                 f"type {ref_type(c)} was both closed over and passed as the "
                                 f"argument {names()[i]}")


def returned_ref_error(where: str, ref, names) -> ValueError:
    """JAX's error for a Ref among a jitted function's results."""
    origin = f"\n\nThe returned mutable array was passed in as the argument " \
             f"{names()[ref._argument]}." if ref._argument is not None else ""
    created = getattr(ref, "_created", None)    # a Ref the traced function made
    if not origin and created is not None:
        origin = f"\n\nThe returned mutable array was created on line {created}."
    return ValueError(f"function {where} traced for jit returned a mutable array reference of "
                      f"type {ref_type(ref)}, but mutable array references cannot be returned."
                      + origin)


def uses_refs(closed) -> bool:
    return any(is_ref(c) for c in closed.consts)


def check_one_device(closed, leaves) -> None:
    """NeedsMesh where a Ref `closed` reads or writes holds an Array over a mesh (passed or
    closed over): jit runs the program over that mesh then, as JAX's, so the Ref's value
    stays split as it was (on one device it would come back gathered)."""
    for c in closed.consts:
        if is_ref(c):
            sharding = getattr(ref_get(the_ref(c, leaves)), "sharding", None)
            if type(sharding).__name__ == "NamedSharding" and \
                    type(sharding.mesh).__name__ == "Mesh":
                raise NeedsMesh("a Ref over a mesh read or written by a program for one "
                                "device", sharding.mesh)


def the_ref(const, leaves):
    """The Ref a const stands for in this call: the argument a stand-in stands in for."""
    return leaves[const._argument] if const._argument is not None else const


def values_for(consts, leaves) -> list:
    """The consts with each Ref's value in the current trace in its place."""
    return [the_ref(c, leaves)[...] if is_ref(c) else c for c in consts]


def call_consts(entry, leaves) -> list:
    """The consts a top-level call of a compiled `entry` passes: each Ref's own buffer in its
    place, which the call donates (the others as the entry keeps them, on its device)."""
    if not entry.refs:
        return entry.consts
    return [ref_get(the_ref(c, leaves)) if is_ref(c) else c for c in entry.jaxpr.consts]


def without_refs(values, positions):
    """`values` (one per leaf: the leaves, their names, donation flags) without the Refs'
    (a tuple; None stays None)."""
    if values is None or not positions:
        return values if values is None else tuple(values)
    return tuple(v for i, v in enumerate(values) if i not in positions)


def threaded(closed) -> tuple:
    """The consts' indices whose final values a top-level call of `closed` returns last: the
    Refs written (`ref_writes`, in that order), then those only read."""
    written = tuple(closed.ref_writes)
    return written + tuple(i for i, c in enumerate(closed.consts)
                           if is_ref(c) and i not in written)


def donating(closed) -> tuple:
    """(the jaxpr a top-level call compiles, per const whether it is donated, {const index:
    the result its buffer is donated to}): `closed`'s jaxpr also returning the Refs only
    read, every Ref's buffer aliased to its final value (module docstring)."""
    jaxpr, refs = closed.jaxpr, threaded(closed)
    if not refs:
        return jaxpr, (False,) * len(jaxpr.constvars), {}
    read_only = [jaxpr.constvars[i] for i in refs[len(closed.ref_writes):]]
    if read_only:
        jaxpr = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars + read_only, jaxpr.eqns)
    first = len(jaxpr.outvars) - len(refs)
    return (jaxpr, tuple(i in refs for i in range(len(closed.consts))),
            {i: first + k for k, i in enumerate(refs)})


def write_back_donated(closed, outs, leaves) -> list:
    """`write_back` for a top-level call (`donating`'s program): every Ref takes its result,
    the buffer it donated; the results before them."""
    refs = threaded(closed)
    n = len(outs) - len(refs)
    for index, value in zip(refs, outs[n:]):
        ref_set(the_ref(closed.consts[index], leaves), value)
    return outs[:n]


def write_back(closed, outs, leaves) -> list:
    """Write the trailing outputs into the Refs they are the final values of; the results
    before them."""
    if not closed.ref_writes:
        return outs
    n = len(outs) - len(closed.ref_writes)
    for index, value in zip(closed.ref_writes, outs[n:]):
        the_ref(closed.consts[index], leaves)[...] = value     # (a vmapped value: JAX's error)
    return outs[:n]



def ref_mesh(closed, leaves):
    """The mesh of a Ref `closed` reads or writes whose Array is split over one (passed or
    closed over), else None."""
    try:
        check_one_device(closed, leaves)
    except NeedsMesh as e:
        return e.mesh
    return None


class LoweredOverRefs:
    """`jit(f).lower(...)` of a program reading or writing a Ref whose Array is split over a
    mesh: lowered as the program over the Refs' values (`donating`'s jaxpr: each value a
    donated input, its final value a result), partitioned over their mesh as jit's calls run
    it. Its `compile()` gives a Compiled taking the Refs, each call writing their final values
    back, as JAX's does (`f.lower(x_ref).compile()(x_ref)`). Everything else (`as_text()`,
    `cost_analysis()`, ...) is the values' program's Lowered."""

    def __init__(self, traced):
        self.traced = traced
        closed, leaves = traced.jaxpr, traced._leaves
        jaxpr = donating(closed)[0]
        self._at = at = tuple(i for i, c in enumerate(closed.consts) if is_ref(c))
        consts = list(closed.consts)

        def run(values, *arrays):
            given = list(consts)
            for i, value in zip(at, values):
                given[i] = value
            return eval_jaxpr(jaxpr, given, *arrays)
        run.__name__ = run.__qualname__ = traced.jitted._name
        # a jit of `run` (the jitted function's class, as `jit(run, donate_argnums=0,
        # keep_unused=True)` makes it: static_argnums, static_argnames, donate_argnums,
        # donate_argnames, backend, device, inline, keep_unused)
        self._program = type(traced.jitted)(run, None, None, 0, None, None, None, False, True)
        self._lowered = self._program.lower(*self._arguments(leaves))

    def _arguments(self, leaves) -> list:
        """A call's arguments of the values' program: the Refs' own Arrays (donated), then the
        leaves that are not Refs."""
        consts = self.traced.jaxpr.consts
        return [[ref_get(the_ref(consts[i], leaves)) for i in self._at],
                *without_refs(leaves, ref_positions(leaves))]

    def compile(self, *args, **kwargs):
        return CompiledOverRefs(self, self._lowered.compile(*args, **kwargs))

    def __getattr__(self, name):
        return getattr(self._lowered, name)


class CompiledOverRefs:
    """LoweredOverRefs' `compile()`: called with the Refs, as the jitted function is."""

    def __init__(self, lowered: LoweredOverRefs, compiled):
        self._lowered, self._compiled = lowered, compiled

    def __call__(self, *args, **kwargs):
        traced = self._lowered.traced
        leaves, _ = tree_flatten((args, kwargs))
        outs = self._compiled(*self._lowered._arguments(leaves))
        outs = write_back_donated(traced.jaxpr, list(outs), leaves)
        return tree_unflatten(traced.out_tree, outs)

    def __getattr__(self, name):
        return getattr(self._compiled, name)
