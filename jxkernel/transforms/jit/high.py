"""jit called with hijax values among its arguments (a library's high types, core/hijax.py:
Flax NNX's hijax Variables), as JAX 0.10.2's jit takes them: each mutable one is an input of
its type with what it holds now (its quasi-dynamic data, part of the cache key), the trace
lowered (core/hijax_lower.py) to a program over their low values, which are read out of the
values before the call and written back into them after it (`read_loval`,
`update_from_loval`).

    >>> import jxkernel
    >>> from jxkernel._jax._src.hijax import Box
    >>> box = Box(1.0)
    >>> def add_to(b, x):
    ...     b.set(b.get() + x)
    ...     return x * 2
    >>> jxkernel.jit(add_to)(box, 2.0), float(box.get())
    (Array(4., dtype=float32, weak_type=True), 3.0)
"""
from __future__ import annotations

import weakref

from ...core.avals import typeof_rules
from ...core.config import config
from ...core import vma
from ...core.hijax import AvalQDD, HiPrimitive, cur_qdd, eqn_is_high, hi_value_types
from ...core.interpret import eval_jaxpr
from ...core.hijax_lower import low_of, lower_jaxpr  # noqa: F401  (jit.py's, from here)
from ...core.staging import DebugInfo, JaxprTrace, convert_constvars_to_invars, high_jaxprs
from ...core.staging import const_qdds as const_qdds_of
from ...core.hijax import is_high_aval
from ...core.trace import Tracer, _ctx, eval_trace, new_trace
from ...tree_util import tree_unflatten
from ...xla.array import Array
from ...xla.placement import placement_of
from .args import leaf_aval
from .primitive import consts_kept, eqn_params, jit_p, one_device_program, rerun_if_invalid

# a jit's lowered trace -> the high one it was lowered from: a jit equation staged into a
# jaxpr holds the high one, as JAX's (transforms/jit/function.py's _bind)
high_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# Jitted -> {key: (the low program's jit, the trace's final quasi-dynamic data, out types)}
_programs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CapturedHigh(NotImplementedError):
    """A jit's trace closed over mutable hijax values (Flax NNX's Variables of a model the
    function reads): eagerly, jit.py calls it through `call_high` from then on, the values
    threaded through as inputs, as JAX's jit does (`convert_const_himutables`). Inside
    another trace this is raised as it was before: not lowered. `traced`: (that trace, its
    output tree), which the call then compiles: the function is traced once, as in JAX (a
    `print` in it prints once)."""

    def __init__(self, message, traced=None):
        super().__init__(message)
        self.traced = traced


def _captures_mutable_high(consts) -> bool:
    return any(type(c) in hi_value_types and typeof_rules[type(c)](c).has_qdd for c in consts)


# the jits whose function closes over mutable hijax values: always called through call_high
_capturing: weakref.WeakSet = weakref.WeakSet()


def has_high(leaves, jitted=None) -> bool:
    return jitted in _capturing or any(type(leaf) in hi_value_types for leaf in leaves)


def _in_type(leaf, name):
    if type(leaf) in hi_value_types:
        aval = typeof_rules[type(leaf)](leaf)
        return AvalQDD(aval, cur_qdd(leaf)) if aval.has_qdd else aval
    return leaf_aval(leaf, name)


def call_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs, traced=None):
    """`jitted` called eagerly with these flat arguments, some of them hijax values (or,
    `traced` (CapturedHigh's), found to close over some: from now on always called here)."""
    if traced is not None:
        _capturing.add(jitted)
    if has_high_tracer(leaves):
        return stage_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs)
    names = _Names(jitted, dyn_args, dyn_kwargs)          # (only a miss or an error reads them)
    in_types = tuple(_in_type(leaf, lambda i=i: names()[i]) for i, leaf in enumerate(leaves))
    if traced is not None:      # the trace that found the captured values: compiled, not redone
        keep_trace(jitted, _signature(treedef, in_types, statics), *traced)
    key = (treedef, in_types, statics, config._trace_state)
    last = _last_call.get(jitted)
    # one program per quasi-dynamic data of the values it closes over (JAX's
    # _qdd_cache_index): the first whose captured values still hold what they held when traced
    if last is not None and last.generation is config._generation and last.key == key and \
            all(cur_qdd(c) == q for c, q in last.case[0]):
        found = last.case
    else:
        cases = _programs.setdefault(jitted, {}).setdefault(key, [])
        found = next((case for case in cases
                      if all(cur_qdd(c) == q for c, q in case[0])), None)
        if found is None:
            found = _compile(jitted, treedef, statics, in_types, names())
            cases.append(found)
        last = _last_call[jitted] = _LastCall(key, found)
    checks, program, consts, const_types, finals, out_avals, out_tree = found
    # the values it closes over go in first, read out and written back as arguments are
    leaves, in_types = [*consts, *leaves], [*const_types, *in_types]
    lo_args = []
    for leaf, ty in zip(leaves, in_types):
        if type(ty) is AvalQDD:
            lo_args.extend(ty.aval.read_loval(ty.qdd, leaf))
        elif ty.is_high:
            lo_args.extend(ty.lower_val(leaf))
        else:
            lo_args.append(leaf)
    lo_outs = iter(last.run(program, lo_args))
    outs = []
    for aval in out_avals:      # an immutable high result is raised from its low values
        outs.append(aval.raise_val(*[next(lo_outs) for _ in aval.lo_ty()]) if aval.is_high
                    else next(lo_outs))
    for leaf, ty, final in zip(leaves, in_types, finals):
        if type(ty) is AvalQDD:        # what the program left in each mutable value
            ty.aval.update_from_loval(final, leaf, *[next(lo_outs) for _ in
                                                    ty.aval.lo_ty_qdd(final)])
    return tree_unflatten(out_tree, outs)


class _Names:
    """A call's leaf names, made on first use (`names()`): a call that hits needs none."""
    __slots__ = ("jitted", "args", "kwargs", "names")

    def __init__(self, jitted, args, kwargs):
        self.jitted, self.args, self.kwargs, self.names = jitted, args, kwargs, None

    def __call__(self):
        if self.names is None:
            self.names = self.jitted._leaf_names(self.args, self.kwargs)
        return self.names


class _LowProgram:
    """A lowered program run as a jit equation is eagerly (compiled once, cached by its
    jaxpr): `program(*lo_args)`."""
    __slots__ = ("jaxpr", "consts", "name")

    def __init__(self, jaxpr, consts, name):
        self.jaxpr, self.consts, self.name = jaxpr, consts, name

    def __call__(self, *lo_args):
        n = len(self.jaxpr.jaxpr.invars)
        return jit_p.bind(*self.consts, *lo_args, **eqn_params(
            self.jaxpr, n, (False,) * n, self.name, False, False))


class _LastCall:
    """A capturing jit's last call: its key and program case, and the low program's
    executable once a bind has compiled it, so that the next call alike (same argument types,
    captured values holding what they held, config unchanged) runs the executable itself, as
    a plain jit's hit does, not the jit equation's eager bind (most of such a call's time).
    A low argument that is not an Array where the last ones were, or a config that asks for
    checks or a mesh, binds the equation as before (which compiles, puts, checks)."""
    __slots__ = ("key", "case", "generation", "exe", "where")

    def __init__(self, key, case):
        self.key, self.case, self.generation = key, case, config._generation
        self.exe = self.where = None

    def run(self, program: _LowProgram, lo_args: list) -> list:
        if self.exe is not None and _ctx.trace is eval_trace and config._eager_fast and \
                not config._checked_calls and self._placed(lo_args):
            return self.exe.call_arrays([*program.consts, *lo_args])
        outs = program(*lo_args)
        args = [*program.consts, *lo_args]
        if args and all(type(a) is Array and a._sharding is None for a in args):
            device = args[0].device         # (the bind's: its first Array's, committed or not)
            self.where = (placement_of(device, True), placement_of(device, False))
            self.exe = one_device_program(program.jaxpr, args) if self._placed(args) else None
        return outs

    def _placed(self, arrays) -> bool:
        """Whether each is an Array on the device the executable runs on, as the bind's."""
        committed, uncommitted = self.where
        for a in arrays:
            if type(a) is not Array or a._sharding is not None or \
                    a._buf._sharding is not committed and a._buf._sharding is not uncommitted:
                return False
        return True


# Jitted -> its _LastCall (high.py's fast path)
_last_call: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def forget(jitted=None) -> None:
    """Drop `jitted`'s traces, programs and last call (every jit's, given None), as JAX's
    `clear_cache` drops its executables: its next call traces and compiles again.

        >>> forget()
    """
    for programs in (_high_traces, _programs, _last_call):
        if jitted is None:
            programs.clear()
        else:
            programs.pop(jitted, None)


# Jitted -> {signature: [(checks, closed, out tree, inputs' final data)]}: the high traces of
# a jit whose function closes over mutable hijax values, each with what the captured values
# held when traced (`checks`: (value, its quasi-dynamic data)). The trace that found the
# captured values serves the call (eager `_compile`, `stage_high`, `_inline_high`) and later
# calls alike, so that the function is traced once, as in JAX (a `print` in it prints once)
_high_traces: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _signature(treedef, in_types, statics) -> tuple:
    return treedef, tuple(in_types), statics, config._trace_state, vma.trace_place()


def keep_trace(jitted, signature, closed, out_tree, finals=None) -> None:
    """Keep `closed` for `jitted`'s calls at `signature` while the values it captured hold
    what they held; not one closing over another trace's values (they die with it)."""
    if closed not in const_qdds_of or closed.in_avals != [
            t.aval if type(t) is AvalQDD else t for t in signature[1]] or \
            any(isinstance(c, Tracer) for c in closed.consts):
        return
    checks = [(c, q) for c, (q, _) in zip(closed.consts, const_qdds_of[closed]) if q is not None]
    finals = [None] * len(signature[1]) if finals is None else finals
    cases = _high_traces.setdefault(jitted, {}).setdefault(signature, [])
    cases.append((checks, closed, out_tree, finals))


def kept_trace(jitted, signature):
    """(closed, out tree, inputs' final data) kept for this call, or None."""
    for checks, closed, out_tree, finals in _high_traces.get(jitted, {}).get(signature, ()):
        if all(cur_qdd(c) == q for c, q in checks):
            return closed, out_tree, finals
    return None


def has_high_tracer(leaves) -> bool:
    return type(_ctx.trace) is JaxprTrace and \
        any(isinstance(leaf, Tracer) and is_high_aval(leaf.aval) for leaf in leaves)


def is_high_trace(closed) -> bool:
    """Whether a jit's trace staged hijax values or closed over mutable ones (what
    `remember_high` lowers, or refuses, before it compiles)."""
    return closed in high_jaxprs or _captures_mutable_high(closed.consts)


def remember_high(closed, out_trees):
    """`closed` (a jit's trace, its output tree in `out_trees`) lowered (core/hijax_lower.py)."""
    if _captures_mutable_high(closed.consts):
        raise CapturedHigh(
            "jxkernel does not lower a hijax value captured from outside the function traced "
            "for jit inside another trace, whose state JAX threads through: pass it to the "
            "jit as an argument", (closed, out_trees[0]))
    lowered = lower_jaxpr(closed)
    if lowered is not closed:           # kept for a jit equation staged by make_jaxpr
        high_of[lowered] = closed
    return lowered


def operands_of(closed) -> tuple:
    """(the jaxpr a jit equation staged inside another trace holds, the consts passed first
    as its operands): primitive.consts_kept's, and a high jaxpr's consts all operands."""
    if closed.consts and consts_kept(closed) and high_of.get(closed) is None:
        return closed, []
    return convert_constvars_to_invars(closed)


def staged_high(jaxpr, consts, out_tree, closed):
    """A jit equation staged into a jaxpr (make_jaxpr, an enclosing jit's trace) holds the
    high jaxpr, as JAX's (new_box, box_set, box_get); the enclosing trace is high, and its
    lowering binds the low twin (core/hijax_lower.py's low_of)."""
    high = high_of.get(closed)
    if high is None or type(_ctx.trace) is not JaxprTrace:
        return jaxpr, consts, out_tree, closed
    _ctx.trace.is_high = True
    hi_jaxpr, hi_consts = convert_constvars_to_invars(high)
    if len(hi_consts) == len(consts) and all(a is b for a, b in zip(hi_consts, consts)):
        low_of[hi_jaxpr] = jaxpr
    return hi_jaxpr, hi_consts, out_tree, high


def bind_inside(jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs):
    """`jitted` called inside another trace (jit.py's `_bind`); one that closes over mutable
    hijax values is staged with them as inputs (`stage_high`), as JAX's jit threads them
    (`convert_const_himutables`): a jit inside a jit, make_jaxpr, a loop body. Run at once
    (under vmap or jvp) and making a NaN/inf checked for, the function op by op instead."""
    return rerun_if_invalid(jitted, statics, dyn_args, dyn_kwargs, lambda: _bind_inside(
        jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs))


def _bind_inside(jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs):
    if jitted not in _capturing:
        try:
            return jitted._bind(leaves, treedef, statics, avals, dyn_args, dyn_kwargs)
        except CapturedHigh as e:
            _capturing.add(jitted)      # (also called through call_high at the top level)
            keep_trace(jitted, _signature(treedef, avals, statics), *e.traced)
    if type(_ctx.trace) is not JaxprTrace:
        return _inline_high(jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs)
    if _ctx.trace.requires_low:
        return _run_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs)
    return stage_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs)


def _inline_high(jitted, leaves, treedef, statics, avals, dyn_args, dyn_kwargs):
    """Under grad or vmap (no jaxpr being staged): the jit's trace (kept, or traced now) runs
    its equations on the current trace, the captured values' own primitives meeting it
    there, as JAX's jit rule runs its jaxpr's (a write under grad or vmap is refused by the
    write's own rule, in JAX's words); a trace that holds a high call (a jit inside it that
    closes over them) runs as the function."""
    signature = _signature(treedef, avals, statics)
    kept = kept_trace(jitted, signature)
    if kept is None:
        try:        # (a trace that closes over another trace's values is not kept)
            closed, out_tree = jitted._trace(treedef, statics, avals, dyn_args, dyn_kwargs)[:2]
        except CapturedHigh as e:
            closed, out_tree = e.traced
            keep_trace(jitted, signature, closed, out_tree)
    else:
        closed, out_tree, _ = kept
    if closed.ref_writes or any(eqn_is_high(e) and not isinstance(e.primitive, HiPrimitive)
                                for e in closed.eqns):
        return _run_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs)
    return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts, *leaves))


def _run_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs):
    """In a loop body that threads the values (whose primitives run low there:
    lax/_cf_bodies.py's holding_high): the function runs on the current trace."""
    out_trees = []
    names = lambda: jitted._leaf_names(dyn_args, dyn_kwargs)     # noqa: E731
    outs = jitted._flat_fun(treedef, statics, out_trees, names)(*leaves)
    return tree_unflatten(out_trees[0], outs)


def stage_high(jitted, leaves, treedef, statics, dyn_args, dyn_kwargs):
    """`jitted` called inside make_jaxpr (a JaxprTrace) with traced hijax values among its
    arguments, or closing over concrete mutable ones: one jit equation holding the high
    jaxpr, as JAX's (`a:BoxTy` in, `box_get` and `box_set` inside; a value closed over goes
    in as a constant of the enclosing trace). Each mutable value goes in with what it holds at
    the call, and holds what the call left in it after; the enclosing trace's lowering
    inlines the equation."""
    outer = _ctx.trace
    names = jitted._leaf_names(dyn_args, dyn_kwargs)
    in_types = []
    for i, leaf in enumerate(leaves):
        aval = leaf.aval if isinstance(leaf, Tracer) else None
        if aval is not None and is_high_aval(aval):
            in_types.append(AvalQDD(aval, outer.cur_qdd(leaf)) if aval.has_qdd else aval)
        else:
            in_types.append(_in_type(leaf, lambda i=i: names[i]))
    closed, out_trees, finals, const_qdds = _trace_high(jitted, treedef, statics, in_types,
                                                       names)
    jaxpr, consts = convert_constvars_to_invars(closed)
    n = len(consts) + len(leaves)
    outs = jit_p.bind(*consts, *leaves, **eqn_params(jaxpr, n, (False,) * n, jitted._name,
                                                      False, False))
    outer.is_high = True
    for leaf, ty, final in zip(leaves, in_types, finals):
        if type(ty) is AvalQDD:        # what the call left in it
            outer.qdds[outer.to_atom(leaf)].update(final)
    for const, (start, final) in zip(consts, const_qdds):
        if start is not None:          # a mutable value closed over: what the call left in it
            outer.qdds[outer.to_atom(const)].update(final)
    return tree_unflatten(out_trees[0], outs)


def _trace_high(jitted, treedef, statics, in_types, names):
    """(the high ClosedJaxpr of the jitted function at `in_types`, its output trees, the
    mutable inputs' final quasi-dynamic data, the captured values' (start, end) data): a
    trace kept (`kept_trace`) where there is one, so that the function is traced once."""
    signature = _signature(treedef, in_types, statics)
    kept = kept_trace(jitted, signature)
    if kept is not None:
        closed, out_tree, finals = kept
        return closed, [out_tree], finals, const_qdds_of[closed]
    out_trees = []
    info = DebugInfo(jitted._name, jitted._source, "jit", tuple(names))
    with new_trace(JaxprTrace, info, "lift") as trace:
        tracers = [trace.new_arg(t) for t in in_types]
        closed = trace.to_jaxpr(jitted._flat_fun(treedef, statics, out_trees,
                                                 lambda: names)(*tracers))
        finals = trace.final_qdds()
        # the captured mutable values: (what each held when the trace began, at its end)
        const_qdds = trace.const_qdds(closed)
    high_jaxprs.add(closed)
    const_qdds_of[closed] = const_qdds
    keep_trace(jitted, signature, closed, out_trees[0], finals)
    return closed, out_trees, finals, const_qdds


def _compile(jitted, treedef, statics, in_types, names):
    """(the captured values' checks, the program, the consts and their types, the inputs'
    final quasi-dynamic data, the output types, the output tree). The trace's consts go in
    as leading inputs, so that the mutable hijax values it closes over are read out before
    each call and written back after it."""
    closed, out_trees, finals, const_qdds = _trace_high(jitted, treedef, statics, in_types,
                                                       names)
    if closed.ref_writes:
        raise NotImplementedError("jxkernel's jit does not take hijax values and write Refs "
                                  "made outside in one call")
    high, consts = convert_constvars_to_invars(closed)
    high_jaxprs.add(high)
    const_types = [AvalQDD(v.aval, q) if q is not None else
                   (v.aval if type(c) in hi_value_types else leaf_aval(c, lambda: "a const"))
                   for v, c, (q, _) in zip(closed.jaxpr.constvars, consts, const_qdds)]
    finals = [f for _, f in const_qdds] + list(finals)
    lo = lower_jaxpr(high, [t.qdd if type(t) is AvalQDD else None
                            for t in [*const_types, *in_types]], finals)
    program = _LowProgram(*convert_constvars_to_invars(lo), jitted._name)
    checks = [(c, q) for c, (q, _) in zip(consts, const_qdds) if q is not None]
    return checks, program, consts, const_types, finals, closed.out_avals, out_trees[0]
