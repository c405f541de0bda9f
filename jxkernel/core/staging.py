"""Staging: trace a Python function into a jaxpr.

`JaxprTrace` records every primitive applied to its tracers as an equation
instead of running it. Values that are not its own tracers are constants:
scalars and 0-d NumPy values become literals (`2.0:f32[]`), arrays (0-d Arrays too) and
tracers of enclosing traces become constvars (so a jit inside grad closes over the grad's
tracers, and the grad sees them again when the jit equation is bound with its consts). One
constvar per value, by id, as JAX's: a NumPy array and the Array jnp put it on the device as
(numpy/util.host_array) are one.

A trace with a `ref_policy` keeps the state of the Refs (api/state.py) made outside it, as
JAX threads them through a jaxpr as effects. "lift" (jit, scan, while and cond bodies): a
Ref read inside is a constvar whose const is the Ref itself (its value is read when the
program runs, not baked), and the final value of each Ref written is one more output
(`ClosedJaxpr.ref_writes` names its const); the consumer passes the values and writes the
results back. "record" (make_jaxpr): Refs are values of the jaxpr, of type `Ref{f32[3]}`,
and their reads and writes `get` and `swap` equations, as JAX's jaxprs show them
(api/state_primitives.py records them; `ref_vars` holds each Ref's Ref-typed tracer). Other
traces see a Ref's box.

    >>> from jxkernel import make_jaxpr
    >>> make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3))
    { lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }
"""
from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .config import config
from .earray import constant_handlers, foreign_constant
from . import vma
from .avals import ShapedArray, abstract_token, get_aval
from .mesh import AxisType, get_abstract_mesh, recording_mesh
from .check import check_jaxpr
from .ir import ClosedJaxpr, Eqn, Jaxpr, Literal, Var
from .name_stack import eqn_source_info
from .primitive import const_folding_rules, forwarding_rules, staging_rules
from . import avals as _avals
from .sharding_types import abstract_eval, insert_reduced_reshard, reduced_reshard_prims
from .source_info import SourceInfo, add_trace_boundary, creation_frames, trace_boundary
from .tracer_errors.origin import made_from_constants, origin_text
from .watches import watched
from .trace import (Trace, Tracer, aval_text, current_trace, key_reuse, new_trace,
                    set_current_trace)
from .avals import typeof_rules
from .hijax import AvalMutableQDD, AvalQDD, MutableQuasiDynamicData, hi_value_types


class DebugInfo(NamedTuple):
    """What a traced function was, for messages: `f at cell 3:2 traced for jit`."""
    fun_name: str
    source: SourceInfo | None
    transformation: str                   # "jit" (also make_jaxpr's), "cond branch", ...
    arg_names: tuple | None               # one name per flat input, e.g. "params['w']"
    # the flat inputs that came as Python scalars (jit knows its arguments; None: not known),
    # for errors that offer a static argument: an array, even 0-d, cannot be one
    python_inputs: frozenset | None = None
    # what the user called, where `transformation` is another's: make_jaxpr traces as a jit
    # (its errors say "for jit"), but a jit traced inside it is "inside make_jaxpr(f)"
    shown_as: str | None = None

    def describe(self) -> str:
        where = f" at {self.source.file}:{self.source.line}" if self.source else ""
        return f"the function {self.fun_name}{where} for {self.transformation}"


class DynamicJaxprTracer(Tracer):
    """A staged value: a Var of the jaxpr being built, or a known constant. Named as JAX's
    jit tracer, since Python's own messages name the class: `x + [1]` under jit says
    "unsupported operand type(s) for +: 'DynamicJaxprTracer' and 'list'", as in JAX
    (jxkernel's code calls it JaxprTracer, below; partial evaluation's unknowns are
    core/partial_eval.py's JaxprTracer, as JAX's pe.JaxprTracer)."""
    __slots__ = ("_aval", "_var", "const")   # `_var`: a `var` slot would hide x.var()
    # its class as JAX's messages print it (core/trace.py's jax_type_text): at the JAX path
    # where jxkernel's answers (jxkernel/_jax/_src/interpreters/partial_eval.py)
    _jax_class_path = "jxkernel._src.interpreters.partial_eval.DynamicJaxprTracer"

    def __init__(self, trace, aval, var=None, const=None):
        self._trace, self._aval, self._var, self.const = trace, aval, var, const

    @property
    def aval(self):
        return self._aval

    def to_concrete_value(self):
        # None, as JAX's jit tracer: a value staged from constants alone (`jnp.asarray(4)`,
        # `jnp.int32(3)` in the body) is traced too, and `int()`, `jnp.arange(n)` or `if` of
        # it raise as in JAX; its known value (`const`) only folds the jaxpr's literals
        return None

    def _short_repr(self):
        # a token's type by its own repr, as JAX's: JitTracer(AbstractToken())
        text = repr(self._aval) if self._aval is abstract_token else aval_text(self._aval)
        return f"JitTracer({text})"


JaxprTracer = DynamicJaxprTracer     # the name jxkernel's code knows it by


_LITERAL_TYPES = (int, float, complex, bool, np.generic, np.ndarray)


# The primitives whose physical rules read jax_threefry_partitionable (random_bits, split,
# fold_in: random/key_prims.py adds them): their equations record it where they are made, as
# JAX's JaxprEqnContext, so a jit body's `with jax.threefry_partitionable(True):` holds where
# the body is lowered, outside the block (core/physical.py's eval_physical reads it).
reads_threefry: set = set()


def _threefry_of(prim):
    return config.jax_threefry_partitionable if prim in reads_threefry else None


def _closed_over_explicit(aval) -> None:
    """JAX's refusal of a value typed over a mesh with Explicit axes closed over by a
    shard_map body whose mesh has its axes Manual or Auto only."""
    sharding = getattr(aval, "split", None)
    if sharding is None or AxisType.Explicit not in getattr(sharding.mesh, "axis_types", ()):
        return
    here = get_abstract_mesh()
    if not here.manual_axes or AxisType.Explicit in here.axis_types:
        return
    raise NotImplementedError(
        "Closing over inputs to shard_map where the input is sharded on `Explicit` axes is "
        "not implemented. As a workaround, please pass those inputs as an argument to "
        f"shard_map. Got input with shape {aval.str_short(True, True)}")


class _RefOperand(Exception):
    """A Ref-typed tracer (api/state.py's RefTracer) met as a primitive's operand."""


class JaxprTrace(Trace):
    """Records primitives into a jaxpr (JAX's DynamicJaxprTrace)."""
    _jax_class_name = "DynamicJaxprTrace"     # JAX's name for it, in its messages
    tracer_type = JaxprTracer    # the class of its tracers (partial evaluation has its own)
    requires_low = False         # True: a HiPrimitive runs its to_lojax (core/hijax_lower.py)
    forwards = True              # forwarding_rules apply (core/primitive.py)
    stages = True                # a program: Python under it runs at its trace alone
    # what a watch of the notebook's (notebook/notes/gradient_calls.py) noted while this trace ran,
    # carried to the program it makes (`watched`); None: nothing
    watched = None

    def __init__(self, parent, debug_info: DebugInfo | None = None, ref_policy=None):
        super().__init__(parent)
        self.debug_info = debug_info
        self.invars: list[Var] = []
        self.eqns: list[Eqn] = []
        self.consts: dict[int, tuple] = {}       # id(value) -> (constvar, value)
        self.ref_policy = ref_policy             # None, "lift" or "record" (module docstring)
        self.ref_vars: dict[int, tuple] = {}     # "record": id(Ref) -> (Ref, its tracer)
        self.refs: dict[int, list] = {}          # id(Ref) -> [Ref, its value here]
        self.ref_writes: list = []               # the lifted Refs written, first write first
        # Var of a mutable hijax type -> its MutableQuasiDynamicData (core/hijax.py)
        self.qdds: dict = {}
        self.is_high = False                     # a hijax type or equation staged here

    def finish(self) -> None:
        super().finish()
        # jit keeps the Ref-typed tracers standing in for its Ref arguments as consts
        # (transforms/jit/refs.py), for every later call: they let go of the trace, which
        # would otherwise live on with them (and count as leaked)
        for _, value in self.consts.values() if self.refs else ():
            if is_ref(value) and isinstance(value, Tracer) \
                    and value._trace is self:
                value._trace = _FINISHED

    # ------------------------------------------------------------ inputs
    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        if getattr(aval, "is_high", False):
            self.is_high = True
        if type(aval) is AvalQDD:          # a mutable hijax type with what it holds on entry
            aval, qdd = aval.aval, aval.qdd
            var = Var(aval)
            self.qdds[var] = MutableQuasiDynamicData(qdd)
        else:
            var = Var(aval)
        self.invars.append(var)
        return self.tracer_type(self, aval, var)

    def to_atom(self, x):
        if type(x) is self.tracer_type and x._trace is self:
            return x._var if x._var is not None else self._const_atom(x.const, x._aval)
        if isinstance(x, Tracer):
            if is_ref(x):    # (api/state.py's RefTracer)
                raise _RefOperand(x.aval)
            self.check_foreign_tracer(x)
            if x.aval.has_qdd:             # a mutable hijax value of an enclosing trace
                return self._hi_const(x, x.aval)
            if self.shard_map_body:
                _closed_over_explicit(x.aval)
            return self._constvar(x, x.aval)
        if type(x) is Literal:
            return x
        if type(x) in hi_value_types:      # a hijax value made outside: a constvar
            return self._hi_const(x)
        aval = get_aval(x)
        if type(x) in constant_handlers:   # a library's array class: its data's EArray
            return self._constvar(foreign_constant(x, aval), aval, key=id(x))
        if self.shard_map_body:
            _closed_over_explicit(aval)
        return self._const_atom(x, aval)

    shard_map_body = False       # (the trace of a shard_map body: api/shard_map/call.py)

    def _hi_const(self, x, aval=None):
        found = self.consts.get(id(x))
        if found is None:
            aval = typeof_rules[type(x)](x) if aval is None else aval
            self.is_high = True
            var = Var(aval)
            if aval.has_qdd:               # what it holds now, read where this trace began
                with set_current_trace(self.parent):
                    self.qdds[var] = MutableQuasiDynamicData(self.parent.cur_qdd(x))
            found = self.consts[id(x)] = (var, x)
        return found[0]

    # ------------------------------------------------------------ hijax
    def aval_mutable_qdd(self, atom):
        """`atom`'s type as a HiPrimitive's abstract_eval takes it: with its mutable
        quasi-dynamic data where it has some."""
        qdd = self.qdds.get(atom) if type(atom) is Var else None
        return atom.aval if qdd is None else AvalMutableQDD(atom.aval, qdd)

    def cur_qdd(self, x):
        if not isinstance(x, Tracer) and id(x) not in self.consts:
            return x.cur_qdd()             # a value made outside, not (yet) used here
        atom = self.to_atom(x)
        qdd = self.qdds.get(atom) if type(atom) is Var else None
        return None if qdd is None else qdd.cur_val

    def add_staged_eqn(self, atoms, outvars, prim, params, source_info) -> None:
        """Record an equation whose outvars the caller made (HiPrimitive's staging)."""
        self.is_high = True
        self.eqns.append(Eqn(atoms, outvars, prim, params, source_info, recording_mesh(),
                             _threefry_of(prim)))

    def final_qdds(self) -> list:
        """Each input's quasi-dynamic data at the end of the trace (None: it has none)."""
        return [self.qdds[v].cur_val if v in self.qdds else None for v in self.invars]

    def const_qdds(self, closed) -> list:
        """(what it held when the trace began, at its end) for each mutable hijax value
        `closed` (this trace's) closes over; (None, None) for its other consts."""
        return [(self.qdds[v].init_val, self.qdds[v].cur_val) if v in self.qdds
                else (None, None) for v in closed.jaxpr.constvars]

    def _const_atom(self, value, aval):
        if not aval.shape and isinstance(value, _LITERAL_TYPES):
            if type(value) in (int, float, complex, bool):   # printed at full precision, as JAX
                return Literal(value, aval)
            return Literal(np.asarray(value, aval.dtype)[()], aval)
        return self._constvar(value, aval)

    def _constvar(self, value, aval, key=None):
        key = id(value) if key is None else key
        arrays = self.outer.host_arrays
        if arrays is not None and key in arrays:   # a NumPy array or its Array: one constant
            key = id(arrays[key][0])
        found = self.consts.get(key)
        if found is None:
            found = self.consts[key] = (Var(aval), value)
        return found[0]

    # ------------------------------------------------------------ Refs made outside
    def ref_value(self, ref):
        """`ref`'s value in this trace: lifted (a constvar holding the Ref) on first use."""
        entry = self.refs.get(id(ref))
        if entry is None:
            if self.ref_policy == "lift":
                aval = ref.aval.inner_aval
                var = Var(aval)
                self.consts[id(ref)] = (var, ref)
                value = self.tracer_type(self, aval, var)
            else:
                value = ref_get(ref, self.parent)
            entry = self.refs[id(ref)] = [ref, value]
        return entry[1]

    def ref_write(self, ref, value) -> None:
        self.ref_value(ref)                  # a write reads first: a partial write keeps the rest
        self.refs[id(ref)][1] = value
        if id(ref) in self.consts and all(r is not ref for r in self.ref_writes):
            self.ref_writes.append(ref)

    # ------------------------------------------------------------ primitives
    def process_primitive(self, prim, args, params):
        special = staging_rules.get(prim)
        if special is not None:
            return special(self, args, params)
        fold = const_folding_rules.get(prim)
        if fold is not None:
            consts = [self._known_const(x) for x in args]
            if all(c is not _UNKNOWN for c in consts):
                folded = fold(*consts, **params)
                if folded is not None:
                    return self.tracer_type(self, folded[1], None, folded[0])
        if _avals.sharding_types_seen and prim in reduced_reshard_prims and len(args) == 2:
            args = insert_reduced_reshard(args)     # (a scalar reduced as the other operand)
        if vma.checked:             # in a shard_map body: types carry varying manual axes
            args = vma.match_inputs(self, prim, args, params)
        try:
            atoms = [self.to_atom(x) for x in args]
        except _RefOperand as e:    # a Ref-typed tracer where an array goes: JAX's words
            raise ValueError(f"Attempting to pass a Ref {e.args[0]!r} to a primitive: "
                             f"{prim.name} -- did you forget to unpack ([...]) the ref?") from None
        out_avals = abstract_eval(prim, [a.aval for a in atoms], params)
        if vma.checked:
            out_avals = vma.out_types(prim, [a.aval for a in atoms], params, out_avals)
        forward = forwarding_rules.get(prim) if self.forwards and not vma.checked else None
        if forward is not None and not prim.multiple_results and type(atoms[0]) is Var and \
                _of_its_type(args[0], atoms[0].aval) and \
                forward([a.aval for a in atoms], **params) == [0]:
            # the operand passed through, as this trace's value (a constvar where it was made
            # outside): no equation, as JAX's DynamicJaxprTrace
            x = args[0]
            return x if type(x) is self.tracer_type and x._trace is self else \
                self.tracer_type(self, atoms[0].aval, atoms[0])
        outvars = [Var(a) for a in out_avals]
        self.eqns.append(Eqn(atoms, outvars, prim, params, eqn_source_info(2),
                             recording_mesh(), config.jax_threefry_partitionable
                             if prim in reads_threefry else None))
        if prim.multiple_results:
            return [self.tracer_type(self, v.aval, v) for v in outvars]
        return self.tracer_type(self, outvars[0].aval, outvars[0])

    def _known_const(self, x):
        if type(x) is self.tracer_type and x._trace is self:
            return x.const if x._var is None else _UNKNOWN
        if type(x) is Literal:
            return x.val
        if isinstance(x, Tracer) or not isinstance(x, _LITERAL_TYPES):
            return _UNKNOWN
        return x

    def add_eqn(self, atoms, prim, params, out_avals, source_info=None) -> list[JaxprTracer]:
        """Record an equation directly (for call-like primitives built by transformations)."""
        outvars = [Var(a) for a in out_avals]
        self.eqns.append(Eqn(atoms, outvars, prim, params, source_info or eqn_source_info(2),
                             recording_mesh(), _threefry_of(prim)))
        return [self.tracer_type(self, v.aval, v) for v in outvars]

    # ------------------------------------------------------------ result
    def to_jaxpr(self, outs) -> ClosedJaxpr:
        """The ClosedJaxpr computing `outs` from this trace's inputs."""
        outs = list(outs) + [self.refs[id(r)][1] for r in self.ref_writes]
        out_atoms = [self.to_atom(x) for x in outs]
        constvars = [v for v, _ in self.consts.values()]
        consts = [c for _, c in self.consts.values()]
        writes = tuple(next(i for i, c in enumerate(consts) if c is r) for r in self.ref_writes)
        return ClosedJaxpr(Jaxpr(constvars, self.invars, out_atoms, self.eqns), consts, writes)

    # ------------------------------------------------------------ messages
    def describe_self(self) -> str:
        return self.debug_info.describe() if self.debug_info else "a traced function"

    def traced_arguments(self, tracer) -> list[str]:
        """Names of the traced inputs `tracer` depends on (e.g. ["x", "params['w']"])."""
        names = self.debug_info.arg_names if self.debug_info else None
        if tracer._var is None or names is None:
            return []
        return [names[i] for i in _input_dependencies(self, tracer._var) if i < len(names)]

    def describe_origin(self, tracer) -> str:
        """Which function was being traced, and which inputs `tracer` depends on (or which
        operations made it a tracer), in JAX's words (core/tracer_errors/origin.py)."""
        return origin_text(self, tracer)

    def describe_creation(self, tracer, count: int = 5) -> list[str]:
        """The last `count` user frames that made `tracer`, outermost first, the line itself
        last (["a.py:12:8 (f)", "a.py:9:8 (helper)"]), or [] where no equation did."""
        for eqn in self.eqns:
            if tracer._var in eqn.outvars and eqn.source_info:
                return [str(frame) for frame in creation_frames(eqn.source_info, count)]
        return []


    def provenance(self, tracer) -> dict | None:
        """Where `tracer` came from, for the notebook's error cards (only called when an error
        is raised): the traced function, the inputs it depends on, and one chain of equations
        from an input to it (or, where it depends on none, every equation it depends on), as
        (primitive, source_info, result type) steps."""
        if type(tracer) is not self.tracer_type or tracer._trace is not self:
            return None
        info = self.debug_info
        names = info.arg_names if info else None
        start, steps = _chain_from_input(self, tracer._var) if tracer._var is not None \
            else (None, [])
        if start is None and tracer._var is not None:   # made from constants: how
            steps = made_from_constants(self, tracer._var)
        return {"function": info.fun_name if info else None,
                "transformation": info.transformation if info else None,
                "defined_at": info.source if info else None,
                "arguments": self.traced_arguments(tracer),
                "argument": names[start] if names and start is not None and start < len(names)
                else None,
                "input_index": start,        # among the flat inputs; None: depends on none
                "input_type": (self.invars[start].aval.str_short(True) if start is not None
                               else None),
                "input_kind": _input_kind(info, start),     # "python", "array" or None
                "steps": [(str(e.primitive), e.source_info,
                           " ".join(v.aval.str_short(True) for v in e.outvars)) for e in steps],
                "value_type": tracer.aval.str_short(True)}


def _input_kind(info, index) -> str | None:
    """How the flat input `index` came: "python" (a Python scalar), "array", or None where the
    trace does not know (not jit's, or no input)."""
    if info is None or info.python_inputs is None or index is None:
        return None
    return "python" if index in info.python_inputs else "array"


_UNKNOWN = object()


def _chain_from_input(trace: JaxprTrace, var: Var) -> tuple:
    """(index of an input `var` depends on, the equations from it to `var`), or (None, [])
    when it depends on none. One forward pass keeping, per variable, the equation that made
    it and its first operand reached from an input; then the chain is read backwards."""
    came_from = {v: (i, None, None) for i, v in enumerate(trace.invars)}
    for eqn in trace.eqns:
        source = next((a for a in eqn.invars if type(a) is Var and a in came_from), None)
        if source is not None:
            for out in eqn.outvars:
                came_from[out] = (came_from[source][0], eqn, source)
        if var in came_from:
            break
    if var not in came_from:
        return None, []
    start, steps = came_from[var][0], []
    while var is not None:
        _, eqn, var = came_from[var]
        if eqn is not None:
            steps.append(eqn)
    return start, steps[::-1]


def _input_dependencies(trace: JaxprTrace, var: Var) -> list[int]:
    """Indices of the trace's inputs that `var` depends on (walking equations backwards)."""
    needed = {var}
    for eqn in reversed(trace.eqns):
        if any(v in needed for v in eqn.outvars):
            needed.update(a for a in eqn.invars if isinstance(a, Var))
    return [i for i, v in enumerate(trace.invars) if v in needed]


# the ClosedJaxprs traced with hijax types or equations in them (core/hijax.py lowers them)
high_jaxprs: weakref.WeakSet = weakref.WeakSet()
# those of them where a mutable hijax value captured from outside ends holding another type
# than it began with (a Box set to a tuple: a while_loop body refuses it, as JAX's)
retyped_consts: weakref.WeakSet = weakref.WeakSet()

# a high trace's ClosedJaxpr -> its `JaxprTrace.const_qdds`: a jit that finds its trace closes
# over mutable hijax values compiles that trace (transforms/jit/high.py), not a second one
const_qdds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def trace_to_jaxpr(fun, in_avals, debug_info: DebugInfo | None = None,
                   ref_policy: str | None = None, forward: bool = True) -> ClosedJaxpr:
    """Trace `fun(*tracers) -> list of outputs` with inputs of `in_avals` into the
    ClosedJaxpr computing them; `fun` must return a flat list. `ref_policy`: how Refs made
    outside are kept (module docstring). `forward=False` stages the equations that
    forwarding_rules would elide, as JAX's partial-evaluation trace (pe.trace_to_jaxpr_nounits,
    which linear_transpose traces with) does.
    """
    with new_trace(JaxprTrace, debug_info, ref_policy) as trace:
        trace.forwards = forward
        tracers = [trace.new_arg(a) for a in in_avals]
        outs = fun(*tracers)
        if debug_info is not None and debug_info.transformation in _CONTROL_FLOW:
            _check_no_ref_returned(outs, debug_info)
        closed = trace.to_jaxpr(outs)
        if trace.watched is not None:
            watched[closed] = trace.watched
        if trace.is_high:
            high_jaxprs.add(closed)
            qdds = const_qdds[closed] = trace.const_qdds(closed)
            if any(start != end for start, end in qdds):
                retyped_consts.add(closed)
    if config.jax_enable_checks:
        check_jaxpr(closed)             # a rule's wrong output type fails here, by name
    if config.jax_debug_key_reuse and debug_info is not None and \
            debug_info.transformation == "jit":
        key_reuse.check_jaxpr(closed.jaxpr)     # as JAX checks each jaxpr jit traces
    if config.jax_check_tracer_leaks:
        # deferred: the leak checker loads only once leak checking is turned on
        from .tracer_errors.leaks import ensure_no_leaks
        finished = weakref.ref(trace)
        del trace, tracers, outs        # ours: what holds the trace after this is a leak
        ensure_no_leaks(finished)
    return closed


# what a control-flow body is traced for (lax/_cf_bodies.py): a Ref among its results is JAX's
# error (jit checks its own: transforms/jit/refs.py)
_CONTROL_FLOW = frozenset({"scan", "cond", "switch", "while_body", "while_cond", "fori_loop"})


def _check_no_ref_returned(outs, debug_info: DebugInfo) -> None:
    """JAX's error for a body or branch returning a Ref (jxkernel's names no output tree
    path: JAX's scan adds "at output tree path result[0]")."""
    for out in outs:
        if is_ref(out):
            source = debug_info.source
            where = f" at {source.file}:{source.line}" if source else ""
            created = getattr(out, "_created", None)
            origin = "" if created is None else \
                f"\n\nThe returned mutable array was created on line {created}."
            raise ValueError(f"function {debug_info.fun_name}{where} traced for "
                             f"{debug_info.transformation} returned a mutable array reference "
                             f"of type {out.aval}, but mutable array references cannot be "
                             f"returned.{origin}")


# the trace of the Ref-typed tracers whose own trace has finished (JaxprTrace.finish)
_FINISHED = JaxprTrace(None)
_FINISHED.finish()


add_trace_boundary(trace_to_jaxpr.__code__)     # where traced_call_site stops looking
trace_boundary[0] = trace_to_jaxpr.__code__       # (and traced_source_info's first walk)


def _ref_trace(ref, trace):
    """The innermost trace from `trace` up that lifts `ref`'s state, or None where its own box
    holds it (no such trace inside the one the Ref was made in, `ref._owner`, nor inside
    make_jaxpr's, which records it: api/state_primitives.py)."""
    while trace is not None and trace is not ref._owner:
        policy = getattr(trace, "ref_policy", None)
        if policy == "lift":
            return trace
        if policy == "record":
            return None
        trace = trace.parent
    return None


# api/state.py's `new_ref`, which it registers here (api is above core): for the layers below
# api that make a Ref (a custom_vjp's rules handed a Ref of a traced value)
making_refs: dict = {}


def is_ref(x) -> bool:
    """Whether `x` is a Ref: api/state.py's, or what stands for one (jit's stand-in, vmap's
    `MappedRef`), each marked by its class's `is_array_ref`.

    >>> is_ref(jax.new_ref(1.0)), is_ref(1.0)
    (True, False)
    """
    return getattr(type(x), "is_array_ref", False)


# jit's stand-in for a Ref argument (api/state.py's RefTracer) -> the Ref the latest call of
# its jit equation passed there (transforms/jit/equation.py): what a custom_vjp's bwd, run
# after that jit's trace ended, writes when fwd returned the stand-in as a residual, as JAX
# passes such a Ref residual into the staged jaxpr as an input (its `num_res_ref`)
stands_for: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def live_ref(ref):
    """`ref`, or, for a stand-in whose jit trace has ended, the Ref it stood for (the one
    before it, in turn, where that is a stand-in of a trace that ended too)."""
    while is_ref(ref) and ref in stands_for and not getattr(ref._trace, "alive", True):
        ref = stands_for[ref]
    return ref


def ref_get(ref, trace=None):
    """`ref`'s value where `trace` (the current trace) runs."""
    keeper = _ref_trace(ref, current_trace() if trace is None else trace)
    return ref._value if keeper is None else keeper.ref_value(ref)


def ref_set(ref, value) -> None:
    """Make `value` `ref`'s value where the current trace runs."""
    keeper = _ref_trace(ref, current_trace())
    if keeper is None:
        ref._value = value
    else:
        keeper.ref_write(ref, value)


def _of_its_type(x, aval) -> bool:
    """Whether `x` holds its aval's dtype: a NumPy constant typed as canonical (float64 data
    of an f32 constvar) is no value to forward, its conversion is what makes it one."""
    return isinstance(x, Tracer) or getattr(x, "dtype", aval.dtype) == aval.dtype


def convert_constvars_to_invars(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """(jaxpr taking its consts as leading inputs, the consts). One without consts is itself:
    a body traced once (lax/_cf_bodies.trace_fun) is then the same jaxpr in every equation that
    uses it, and prints once (`let jaxpr = ...`), as JAX's."""
    jaxpr = closed.jaxpr
    if not jaxpr.constvars and not closed.consts:
        return closed, []
    return ClosedJaxpr(Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns)), \
        list(closed.consts)


