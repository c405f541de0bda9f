"""The gradients a cell computed, as the NaN note (nan_notes.py) looks at them: a gradient
taken eagerly (`jax.grad(f)(x)`), each example's under an eager vmap
(`jax.vmap(jax.grad(f))(xs)`), and one taken inside a jitted function (`step(x)`, whose trace
ran `jax.grad(f)(x)`), whose values live only inside the compiled program.

For that last kind, what the trace saw of the gradient (its inputs, value and result: Vars of
the program being traced) is kept with the program (core/watches.watched), jit gives it to the
program's cache entry, and the entry's calls that its schedule looks at (each cell's first,
then one in so many: core/watches.Schedule), taken off the fast paths, are recorded with
their inputs and results. A call whose result holds NaN, though its inputs hold
none, has its program run again equation by equation from those inputs, up to the values the
gradient took and gave: no Python of the user's runs, and a program calling back into Python
is not run (a print would print again).

    >>> calls = GradientCalls()         # (a gradient of NaN, its value 0. at 0.: the first)
    >>> calls.append((None, (0.,), {}, 0., float("nan"), ("<cell>", 1)))
    >>> calls.first.gradients()[0].g
    nan
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import sys
from typing import Any

import numpy as np

from ...core import dtypes, ir, told_bugs, watches
from ...core.interpret import eval_jaxpr
from ...core.source_info import learner_frame
from ...core.staging import JaxprTracer
from ...core.trace import Tracer
from ...transforms.ad import reverse
from ...transforms.batching import BatchTracer
from ...tree_util import tree_flatten, tree_unflatten
from ...xla.array import Array

# the most elements of a gradient's values looked at for NaN (a copy to the host), and the
# most equations of a jitted program run again to find a gradient's values: past these the
# cell gets no note, rather than wait
LOOKED_AT = 1 << 22
RUN_AGAIN = 2000
# a call is looked at as it is recorded, to keep a loop's first NaN step, where all it holds
# is no larger than this (a copy to the host, and a wait, on each such call)
SMALL = 1 << 14
# programs that call back into Python are not run again: a print or a breakpoint would run
# again (nor, for the same reason, traced and stepped: nan_notes.py)
CALLBACKS = frozenset({"debug_callback", "debug_print", "pure_callback", "io_callback"})


@dataclasses.dataclass
class Gradient:
    """One gradient of the user's function `vg` (value_and_grad's), with its values: the
    arguments it was given, the value and the gradient. `asked`: the user's (file, line) that
    asked for it; `jitted`, `called_at`: the jitted function it was taken inside, and the
    user's line that called that (None: not under jit); `examples`, `batch`: the examples of
    a vmap's batch whose gradient holds NaN where their value is finite (the values here are
    the first's), and the batch's size (None: no vmap); `program`: the jitted call's program
    and inputs, stepped where `vg` cannot be traced again (nan_notes.py)."""
    vg: Any
    args: tuple
    kwargs: dict
    out: Any
    g: Any
    asked: tuple
    jitted: Any = None
    called_at: tuple | None = None
    examples: tuple | None = None
    batch: int | None = None
    program: tuple | None = None    # (ClosedJaxpr, inputs) of the jitted call it was inside


@contextlib.contextmanager
def paused():
    """No gradient recorded, no jitted call's indices checked (core/watches.py), while inside
    (%timeit's runs): a call's values looked at wait for it. A watched program's calls run on
    the fast paths meanwhile; as it ends, the next ones are looked at again."""
    calls, reverse.grad_calls = reverse.grad_calls, None
    was, watches.paused = watches.paused, True
    try:
        yield
    finally:
        watches.paused = was
        if reverse.grad_calls is None:
            reverse.grad_calls = calls
        watches.look_again(cell=False)


class GradientCalls(collections.deque):
    """The record transforms/ad/reverse.py appends to (`grad_calls`): the cell's last calls
    that gave gradients, and the first found making NaN of its own (a gradient NaN where the
    value is finite, or a value NaN; the inputs holding none), looked at as it is recorded
    where it is small. A loop's steps after that one (a training loop's, its parameters NaN
    from then on) hold NaN in their inputs, and are not told: the first is the one to
    step."""

    def __init__(self):
        super().__init__(maxlen=4)
        self.first = None
        # (name, (file, line)) of the first jitted call looked at with NaN in its inputs after
        # calls went by unlooked at: the one that made the NaN may be among those
        self.missed = None

    def append(self, call) -> None:
        """A gradient taken eagerly (reverse.py's tuple), or a call of another kind here."""
        if isinstance(call, tuple):
            call = _Eager(*call)
        super().append(call)
        try:
            if self.first is None and call.size() <= SMALL and call.holds_nan():
                self.first = call
        except Exception as e:  # noqa: BLE001  (looking must never fail the user's call)
            could_not_follow(e)

    def traced(self, call) -> None:
        """A gradient taken under a trace (reverse.py's tuple, tracers among its values): under
        an eager vmap, recorded with its values; inside a jitted function's trace, kept with
        the program being traced (_Taken); under another (a scan's body, jvp), not looked at."""
        try:
            taken, traces = _Taken.of(*call)
            if traces:
                taken.keep_with_programs(traces)
            else:
                self.append(_Batched(taken))
        except _NotFollowed:
            pass
        except Exception as e:  # noqa: BLE001  (following must never fail the user's grad call)
            could_not_follow(e)

    def clear(self) -> None:
        super().clear()
        self.first = self.missed = None


class _Eager:
    """A gradient computed outside any trace."""

    def __init__(self, vg, args, kwargs, out, g, asked):
        self.gradient = Gradient(vg, args, kwargs, out, g, asked)

    def size(self) -> int:
        d = self.gradient
        return size((d.args, d.kwargs, d.out, d.g))

    def holds_nan(self) -> bool:
        d = self.gradient
        return nan_where_finite(d.out, d.g, (d.args, d.kwargs)) or \
            value_nan(d.out, (d.args, d.kwargs))

    def gradients(self) -> list:
        return [self.gradient]


class _NotFollowed(Exception):
    """A value of a trace the record does not follow (a scan body's, jvp's, a vmap's inside
    another vmap)."""


class _Var:
    """Stands for a traced value: the program's Var that holds it."""
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


class _InBatch:
    """Stands for a vmapped value: `of` (a value, or a _Var) holds every example's, along
    axis `dim`."""
    __slots__ = ("of", "dim")

    def __init__(self, of, dim):
        self.of, self.dim = of, dim


class _Taken:
    """A gradient taken under a trace: the function, what stands for each leaf of (args,
    kwargs, value, gradient) (the value itself where it is known), the line that asked, and
    the size of the vmap's batch (None: no vmap). It keeps no trace nor tracer (kept with a
    program, it would keep them alive: a leak to jax_check_tracer_leaks)."""

    def __init__(self, vg, treedef, leaves, counts, asked, batch):
        self.vg, self.treedef, self.leaves, self.asked = vg, treedef, leaves, asked
        self.batch = batch
        # where the leaves of args, kwargs, the value and the gradient start
        self.starts = np.cumsum([0, *counts]).tolist()

    @classmethod
    def of(cls, vg, args, kwargs, out, g, asked) -> tuple:
        """(the _Taken, the jit traces whose Vars it names)."""
        leaves, treedef = tree_flatten((args, kwargs, out, g))
        counts = [len(tree_flatten(x)[0]) for x in (args, kwargs, out, g)]
        batches, traces = set(), set()

        def standing_for(x, in_batch=False):
            if type(x) is BatchTracer and not in_batch:
                batches.add(x._trace)
                inner = standing_for(x.val, True)
                return inner if x.batch_dim is None else _InBatch(inner, x.batch_dim)
            if type(x) is JaxprTracer and _jit_trace(x._trace):
                if x._var is None:          # (a value the trace knows: a constant)
                    return x.const
                traces.add(x._trace)
                return _Var(x._var)
            if isinstance(x, Tracer):
                raise _NotFollowed
            return x
        leaves = [standing_for(x) for x in leaves]
        if len(batches) > 1:
            raise _NotFollowed
        batch = next(iter(batches)).axis_data.size if batches else None
        return cls(vg, treedef, leaves, counts, asked, batch), traces

    def keep_with_programs(self, traces) -> None:
        """Keep this gradient with the programs of the jit `traces` it was taken in, and of
        the jit traces around those (a jitted function called inside another: its Vars are
        the inner program's, which the outer one's jit equation runs)."""
        trace = max(traces, key=lambda t: t.level)
        while trace is not None:
            if _jit_trace(trace):
                if trace.watched is None:
                    trace.watched = WatchedProgram()
                trace.watched.taken.append(self)
            trace = trace.parent

    def vars(self) -> set:
        return {x.var for x in map(_unbatched, self.leaves) if isinstance(x, _Var)}

    def gradients(self, values=None, jitted=None, called_at=None) -> list:
        """The Gradients this one gave: one where there is no batch, else that of the first
        example whose gradient holds NaN where its value is finite (none: []). `values`: the
        program's values of its Vars (a jitted call's)."""
        leaves, dims = [], []
        for x in self.leaves:
            dim = x.dim if isinstance(x, _InBatch) else None
            x = _unbatched(x)
            if isinstance(x, _Var):
                if values is None or x.var not in values:
                    return []
                x = values[x.var]
            leaves.append(x)
            dims.append(dim)
        if self.batch is None:
            return [Gradient(self.vg, *self._split(leaves), self.asked, jitted, called_at)]
        examples = _examples(self, leaves, dims)
        if not examples:
            return []
        first = [_example(x, d, examples[0]) for x, d in zip(leaves, dims)]
        return [Gradient(self.vg, *self._split(first), self.asked, jitted, called_at,
                         tuple(examples), self.batch)]

    def _split(self, leaves) -> tuple:
        (args, kwargs, out, g) = tree_unflatten(self.treedef, leaves)
        return tuple(args), kwargs, out, g


def _unbatched(x):
    return x.of if isinstance(x, _InBatch) else x


def _jit_trace(trace) -> bool:
    """Whether `trace` is a jitted function's own trace (its Vars are its program's)."""
    info = getattr(trace, "debug_info", None)
    return info is not None and info.transformation == "jit"


def _examples(taken, leaves, dims) -> list:
    """The examples (indices along the batch) whose gradient holds NaN where their value is
    finite and their inputs hold no NaN, looked at on the host; none where too large."""
    if size(leaves) > LOOKED_AT:
        return []
    given = range(0, taken.starts[2])
    out, g = range(*taken.starts[2:4]), range(*taken.starts[3:5])

    def per_example(test, indices):
        found = np.zeros(taken.batch, bool)
        for i in indices:
            if not _is_float(leaves[i]):
                continue
            x = np.asarray(test(np.asarray(leaves[i])))
            if dims[i] is None:
                found |= bool(x.any())
            else:
                found |= np.moveaxis(x, dims[i], 0).reshape(taken.batch, -1).any(1)
        return found
    each = per_example(np.isnan, g) & ~per_example(_not_finite, out) & \
        ~per_example(np.isnan, given)
    return [int(i) for i in np.flatnonzero(each)]


def _example(x, dim, i):
    """Example `i` of a vmapped value (along `dim`), or an unbatched value as it is."""
    if dim is None:
        return x
    return x[(slice(None),) * dim + (i,)]


class _Batched:
    """A gradient taken under an eager vmap: its values are every example's (known as it is
    taken, as those of a jit trace's constants are)."""

    def __init__(self, taken: _Taken):
        self.taken = taken

    def size(self) -> int:
        return size([_unbatched(x) for x in self.taken.leaves])

    def holds_nan(self) -> bool:
        return any(nan_where_finite(d.out, d.g, (d.args, d.kwargs)) for d in self.gradients())

    def gradients(self) -> list:
        """That of the first example holding NaN where its value is finite, or none."""
        return self.taken.gradients()


class WatchedProgram:
    """What a jitted function's trace noted (core/watches.watched, then its cache entry's
    `watch`): the gradients taken inside (_Taken). While the notebook looks (`on`), jit gives
    each call of the program to `called`."""

    def __init__(self):
        self.taken: list[_Taken] = []

    @property
    def on(self) -> bool:
        return reverse.grad_calls is not None

    def before_donating(self, leaves) -> list | None:
        """The flat inputs of a call about to donate them (a training step's
        `donate_argnums`), copied to the host (on_host): the call deletes them, and its
        record (`called`) needs them to run the program again. None: that call goes
        unrecorded."""
        return on_host(leaves) if self.on and size(leaves) <= LOOKED_AT else None

    def called(self, jitted, entry, leaves, outs) -> None:
        """Record a call (its flat inputs and results; jit's _call gives them), at the
        learner's line that made it. Not one whose donated inputs were not kept (`leaves`
        None: before_donating), nor one no line of the learner's made."""
        calls = reverse.grad_calls
        # (past LOOKED_AT elements none would be looked at: its arrays are not held either,
        # a large model's parameters kept alive for the cell four times over)
        if calls is None or leaves is None or size((leaves, outs)) > LOOKED_AT:
            return
        # values on the host, which no later call deletes by donating them: a donating step's
        # (its results are the next step's inputs), and a small call's (looked at anyway)
        if entry.donated or size((leaves, outs)) <= SMALL:
            leaves, outs = on_host(leaves), on_host(outs)
        try:
            frame = learner_frame(sys._getframe(1))     # (past nnx.jit's own call of it)
            if frame is None:
                return
            call = _JitCall(self, jitted, entry.jaxpr, leaves, outs,
                            (frame.f_code.co_filename, frame.f_lineno))
            calls.append(call)
            # NaN already in the inputs of a call looked at after some went by unlooked at
            # (core/watches.py): the first NaN may have been made in one of those, so the
            # next cell looks at every call, and finds it where the cell is run again
            if calls.first is None and watches.let_by(entry) and call.size() <= SMALL and \
                    _holds(np.isnan, call.leaves):
                watches.in_full_next(entry)
                calls.missed = calls.missed or (getattr(jitted, "__name__", "the function"),
                                                call.called_at)
        except Exception as e:  # noqa: BLE001  (recording must never fail the user's call)
            could_not_follow(e)


def on_host(leaves) -> list:
    """A recorded call's flat values (its inputs, its results), its Arrays copied to the host
    (callers keep to LOOKED_AT). Each copy waits for the value: a donating step's calls are
    not overlapped while the notebook looks, as a small one's are not (SMALL). Other leaves
    are kept as they are: a PRNG key has no NumPy value (a step's dropout key; one the step
    donated and deleted is gone, and running the program again fails: no note)."""
    return [np.asarray(x) if isinstance(x, Array) else x for x in leaves]


def could_not_follow(error, what: str = "this gradient call", note: str = "NaN") -> None:
    """A bug of ours while following a call for a note (`what` for the `note` note: a gradient
    call for the NaN note, index_calls.py's jitted calls): told at the user's line (silent
    before: the note was missing with no word why), the call going on as written."""
    told_bugs.tell(f"jxkernel could not follow {what} for its {note} note (it raised "
                   f"{type(error).__name__}: {error}). The call ran as written; only that note "
                   "may be missing.", "the cell", error)


class _JitCall:
    """A call of a jitted function inside whose trace a gradient was taken."""

    def __init__(self, program, jitted, closed, leaves, outs, called_at):
        self.program, self.jitted, self.closed = program, jitted, closed
        self.leaves, self.outs, self.called_at = leaves, outs, called_at

    def size(self) -> int:
        return size((self.leaves, self.outs))

    def holds_nan(self) -> bool:
        """Whether its result holds NaN, and its inputs none (the gradients are looked at
        where this holds, by `gradients`)."""
        return bool(_holds(np.isnan, self.outs)) and _holds(np.isnan, self.leaves) is False

    def gradients(self) -> list:
        """The Gradients taken inside, at this call's values, where its result holds NaN and
        its inputs none: the program run again from its inputs, up to the Vars they name.
        None where it calls back into Python or is too long (values_in)."""
        if not self.holds_nan():
            return []
        wanted = set().union(*(t.vars() for t in self.program.taken))
        values = values_in(self.closed, self.leaves, wanted)
        if values is None:
            return []
        return [dataclasses.replace(d, program=(self.closed, self.leaves))
                for t in self.program.taken
                for d in t.gradients(values, self.jitted, self.called_at)]


def values_in(closed, inputs, wanted: set) -> dict | None:
    """The values of the Vars `wanted` (of `closed`, or of the bodies of the jit equations in
    it) when `closed` runs on `inputs`: its equations run one by one, eagerly, up to the last
    that makes one. None for a program calling back into Python or with effects (run again,
    they would happen again), or past RUN_AGAIN equations."""
    names = [str(e.primitive) for e in ir.all_equations(closed.jaxpr.eqns)]
    if CALLBACKS.intersection(names) or closed.jaxpr.effects:
        return None
    found: dict = {}
    try:
        _run(closed, list(inputs), set(wanted), found, [RUN_AGAIN])
    except _TooLong:
        return None
    return found


class _TooLong(Exception):
    """More equations to run than RUN_AGAIN."""


def _run(closed, inputs, wanted, found, budget) -> None:
    """values_in's run of `closed` on `inputs`, into `found`; `budget`: [the equations left
    to run], shared with the bodies it enters."""
    env = dict(zip(closed.jaxpr.constvars, closed.consts))
    env.update(zip(closed.jaxpr.invars, inputs))
    found.update((v, env[v]) for v in wanted if v in env)
    for eqn in closed.jaxpr.eqns:
        if wanted <= found.keys():
            break
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooLong
        # a jitted function's body holding a wanted Var (a jit called inside): run it too
        body = eqn.params.get("jaxpr") if str(eqn.primitive) == "jit" else None
        if isinstance(body, ir.ClosedJaxpr) and (wanted - found.keys()) & _made_in(body):
            _run(body, [a.val if isinstance(a, ir.Literal) else env[a] for a in eqn.invars],
                 wanted, found, budget)
        atoms = list(dict.fromkeys(v for v in eqn.invars if isinstance(v, ir.Var)))
        one = ir.Jaxpr([], atoms, eqn.outvars, [eqn])     # one equation: the interpreter's own
        outs = eval_jaxpr(one, [], *[env[v] for v in atoms])
        env.update(zip(eqn.outvars, outs))
        found.update((v, x) for v, x in zip(eqn.outvars, outs) if v in wanted)


def _made_in(closed) -> set:
    """The Vars `closed` and the jaxprs inside it define."""
    made = set(closed.jaxpr.invars) | set(closed.jaxpr.constvars)
    for eqn in ir.all_equations(closed.jaxpr.eqns):
        made.update(eqn.outvars)
    return made


def value_nan(out, given) -> bool:
    """Whether the value `out` holds NaN and the inputs `given` none (each looked at)."""
    return bool(_holds(np.isnan, out)) and _holds(np.isnan, given) is False


def nan_where_finite(out, g, given) -> bool:
    """Whether the gradient `g` holds NaN where the value `out` is finite and the inputs hold
    no NaN (each looked at: not too large)."""
    return bool(_holds(np.isnan, g)) and _holds(_not_finite, out) is False and \
        _holds(np.isnan, given) is False


def size(tree) -> int:
    return sum(int(np.size(x)) for x in tree_flatten(tree)[0] if _is_float(x))


def _holds(test, tree) -> bool | None:
    """Whether `test` (np.isnan, _not_finite) holds for an element of a float leaf of `tree`;
    None where the leaves are too large to look at."""
    if size(tree) > LOOKED_AT:
        return None
    leaves = [x for x in tree_flatten(tree)[0] if _is_float(x)]
    return any(bool(test(np.asarray(x)).any()) for x in leaves)


def _not_finite(x):
    return ~np.isfinite(x)


def _is_float(x) -> bool:
    """Whether `x` is a float or complex number or array of a kind looked at (jxkernel's
    Array, NumPy's): another object with a dtype (a library's) may not convert."""
    if isinstance(x, (float, complex)):
        return True
    if not isinstance(x, (Array, np.ndarray, np.generic)):
        return False
    try:
        return dtypes.is_inexact(x.dtype)
    except TypeError:           # (a dtype of no number: a key's)
        return False
