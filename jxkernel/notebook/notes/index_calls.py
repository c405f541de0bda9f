"""The note under a cell whose jitted function read or updated an array at an index out of
bounds that was traced (`x[i]`, `x.at[i].set(v)`, `lax.dynamic_slice(x, (i,), (4,))` with `i`
an argument): its value is known only when the compiled program runs, so neither the trace
nor the eager notes (index_notes.py, clamped_start_notes.py) see it, and JAX clamps the read,
drops the update or moves the window, and raises nothing.

    @jax.jit
    def get(x, i):
        return x[i]
    get(jnp.arange(10), 12)   # ⚠ index 12 is past the end of axis 0 (size 10) in get, jitted
                              # (at In[3]:3, called at In[3]:4): JAX read index 9 instead, ...

While the extension is loaded, each program a user's jit compiles that indexes with a traced
value at the user's line is watched (core/watches.py): each of its calls has the program's
index checks (checkify's, api/checkify.py) run on its arguments, compiled once, computing only
what the checks read. Only a site that indexed with JAX's default mode is told (recorded
as it was traced: numpy/indexing.traced_sites, lax/slicing/start_watch.traced_sites): a line
that chose its mode (`x.at[i].get(mode='fill')`, `.set(v, mode='drop')`) meant it, and
jxkernel's own functions index as they mean to (a segment_sum drops ids past its segments).
"""
from __future__ import annotations

import collections
import sys
from typing import NamedTuple

from ...api import checkify
from ...core import compile_record, watches
from ...core.ir import ClosedJaxpr, Var, all_equations, jaxpr_params
from ...core.source_info import installed_package, learner_frame
from ...core.staging import is_ref
from ...core.trace import Tracer
from ...lax.slicing import start_watch
from ...numpy import indexing
from ...transforms.jit.function import jit
from ...views.source import is_user_file
from ...views.source_edits import call_at, segment
from . import gradient_calls
from ..display import Note, Site, more_lines, not_told, source_label
from .index_notes import SHARP_BITS

# which operands of an indexing primitive are its indices (those checkify checks)
_INDICES = {"gather": slice(1, 2), "dynamic_slice": slice(1, None),
            "dynamic_update_slice": slice(2, None),
            **{name: slice(1, 2) for name in ("scatter", "scatter-add", "scatter-mul",
                                              "scatter-min", "scatter-max")}}


class Found(NamedTuple):
    """An index out of bounds a jitted call met: at the user's `file`:`line`, inside
    `function`, whose call was at `called` ((file, line)) written as `call` (the text of the
    function called and of its arguments, `("get", "x, 12")`; None: not found, or long).
    (`function` None: a loop or branch run eagerly, outside jit, `call` that loop's call.)
    `index` on `axis` (of `size`) as the primitive saw it (a negative one counted from the end
    once already), `window` the elements read or written there from it;
    `did`: "clamped" (a read), "filled" (a read), "dropped" (an update) or "moved" (a window's
    start, read or written: `use`). `named`: the lax function the line called (None: jnp's
    indexing); `batched`: under a vmap, `axis` an example's (the batch's axes not counted)."""
    file: str
    line: int
    called: tuple
    function: str | None
    call: tuple | None
    primitive: str
    index: int
    axis: int
    size: int
    window: int
    use: str
    did: str
    named: str | None = None
    batched: bool = False


found: collections.deque = collections.deque(maxlen=16)


class _Pending(NamedTuple):
    """A call whose checks were run, their Error not yet looked at: the function's name, the
    learner's code that called it, its line and instruction."""
    watch: IndexWatch
    error: object
    function: str | None
    code: object
    line: int
    lasti: int


# the calls whose checks ran and are not yet looked at: a look waits for the checks' result
# (a copy to the host), so a loop's calls are looked at together, every BATCH calls and at the
# cell's end (`settle`), and its steps run on as they would
pending: list = []
BATCH = 256


def settle() -> None:
    """Look at the pending calls' checks, in order: the first index out of bounds found at
    each site of the user's goes to `found`."""
    calls, pending[:] = list(pending), []
    for call in calls:
        try:
            told = call.watch.looked_at(call)
        except Exception as e:  # noqa: BLE001  (looking must never fail the cell)
            _could_not_follow(e)
            return
        # (a site's first: a loop's later steps out of bounds there would push it out)
        if told is not None and all((f.file, f.line) != (told.file, told.line) for f in found):
            found.append(told)


def _could_not_follow(error) -> None:
    gradient_calls.could_not_follow(error, "this jitted call's indices", "index")


def install() -> None:
    """Have the programs of the user's jits watched for their indices: at the extension's load."""
    if watch_for not in watches.makers:
        watches.makers.append(watch_for)


def uninstall() -> None:
    if watch_for in watches.makers:
        watches.makers.remove(watch_for)
    indexing.traced_sites.clear()
    start_watch.traced_sites.clear()
    pending.clear()


def clear() -> None:
    """Forget the indices found so far: at a cell's start."""
    found.clear()
    pending.clear()


def watch_for(closed: ClosedJaxpr):
    """The IndexWatch of a program a user's jit compiled, or None: no line of the user's
    indexes with a value known only when it runs, or running its checks would do something
    again: call back into Python (a print would print again) or write a Ref."""
    # (not cached by program: a watch holds its program, which a weak cache's value holding
    # its key would keep alive past its jit; the cache entry holding the watch is the cache)
    sites = _sites(closed.jaxpr, set(closed.jaxpr.invars), {})
    again = closed.jaxpr.effects or any(map(is_ref, closed.consts)) or any(
        e.primitive.name in gradient_calls.CALLBACKS for e in all_equations(closed.jaxpr.eqns))
    return IndexWatch(closed, sites) if sites and not again else None


def _sites(jaxpr, traced: set, sites: dict) -> dict:
    """id(source_info) -> (equation, the learner's SourceInfo), of each equation of `jaxpr`
    (and of those nested) made under a learner's line (`_learners`) by a user's indexing in
    JAX's default mode (`_traced_site`) with a value that `traced` (the arguments) reaches. A
    nested jaxpr's arguments are all taken as reached (a loop's counter, a branch's operand)."""
    for eqn in jaxpr.eqns:
        at = _INDICES.get(eqn.primitive.name)
        info = eqn.source_info
        learners = _learners(info) if at is not None and _traced_site(info) else None
        if learners is not None and any(isinstance(v, Var) and v in traced
                                        for v in eqn.invars[at]):
            sites[id(info)] = eqn, learners
        for sub in jaxpr_params(eqn.params):
            inner = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
            _sites(inner, set(inner.invars), sites)
        if any(isinstance(v, Var) and v in traced for v in eqn.invars):
            traced.update(eqn.outvars)
    return sites


def _learners(info):
    """The learner's line of an equation's source: its own, or the caller's past an installed
    library's (Flax's Variable indexing for `self.table[i]` in the learner's module); None
    where no line is the learner's."""
    while info is not None:
        if is_user_file(info.file) and installed_package(info.file) is None:
            return info
        info = info.caller
    return None


def _traced_site(info) -> bool:
    """Whether the line that made an equation indexed with a traced index in JAX's default
    mode, as it was traced (x[i], x.at[i].set(v), jnp.take, lax.dynamic_slice)."""
    return info is not None and ((info.file, info.line) in indexing.traced_sites or
                                 (info.file, info.line) in start_watch.traced_sites)


class IndexWatch:
    """A program whose calls have its index checks run on their arguments (`called`)."""

    def __init__(self, closed: ClosedJaxpr, sites: dict):
        self.closed, self.sites = closed, sites
        self._checks = None          # the checks' own jitted function, made at the first call

    @property
    def on(self) -> bool:
        return watch_for in watches.makers and not watches.paused

    def before_donating(self, leaves) -> list | None:
        """A donating call's inputs, copied to the host (the call deletes them); None past
        gradient_calls.LOOKED_AT elements: not checked."""
        return gradient_calls.on_host(leaves) if gradient_calls.size(leaves) <= \
            gradient_calls.LOOKED_AT else None

    def called(self, jitted, entry, leaves, outs) -> None:
        """Run the checks on a call's inputs (jit's _call gives them), at the learner's line
        that made the call; their result is looked at later (`settle`), not waited for."""
        # (a Ref's writes, or a call under another trace: not run again)
        if leaves is None or any(isinstance(x, Tracer) or is_ref(x) for x in leaves):
            return
        try:
            frame = learner_frame(sys._getframe(1))
            if frame is None:
                return
            with compile_record.unlogged():   # (the notebook's program, not the learner's)
                error = self.checks()(*leaves)
            # (a watches.Eager's: its jitted function's name, or None for a loop's body)
            name = jitted if jitted is None or isinstance(jitted, str) else \
                getattr(jitted, "__name__", "the function")
            pending.append(_Pending(self, error, name, frame.f_code, frame.f_lineno,
                                    frame.f_lasti))
            if len(pending) >= BATCH:
                settle()
        except Exception as e:  # noqa: BLE001  (checking must never fail the user's call)
            _could_not_follow(e)

    def looked_at(self, call: _Pending) -> Found | None:
        """The index out of bounds a call's checks found at a site of the user's, or None."""
        error = call.error.get_exception()
        eqn, info = self.sites.get(id(getattr(error, "traceback_info", None)), (None, None))
        if eqn is None:
            return None
        index, axis, size = (int(v) for v in error._payload)
        # (under a vmap the operand has the batch's axes too: the learner's x[i] is an
        # example's, its axis counted without them)
        dnums = eqn.params.get("dimension_numbers")
        batch = tuple(getattr(dnums, "operand_batching_dims", ()))
        site = (eqn.source_info.file, eqn.source_info.line)
        return Found(info.file, info.line, (call.code.co_filename, call.line), call.function,
                     _call_text(call.code, call.lasti), eqn.primitive.name, index,
                     axis - sum(b < axis for b in batch), size, *_what_it_did(eqn, axis),
                     start_watch.traced_sites.get(site), bool(batch))

    def checks(self):
        """The program's index checks as a jitted function of its arguments, giving the Error
        (compiled where `called` keeps it out of the compile log)."""
        if self._checks is None:
            closed = self.closed

            def index_checks(*leaves):
                return checkify.errors_of(closed, checkify.index_checks, *leaves)
            self._checks = jit(index_checks)
        return self._checks


def _what_it_did(eqn, axis: int) -> tuple:
    """(window, use, did) of an indexing equation on `axis` (Found's)."""
    name, params = eqn.primitive.name, eqn.params
    mode = str(params.get("mode", ""))
    if name == "dynamic_slice":
        return params["slice_sizes"][axis], "read", "moved"
    if name == "dynamic_update_slice":
        return eqn.invars[1].aval.shape[axis], "update", "moved"
    if name == "gather":
        return params["slice_sizes"][axis], "read", "filled" if "FILL" in mode else "clamped"
    return 1, "update", "clamped" if "CLIP" in mode else "dropped"


def _call_text(code, lasti: int) -> tuple | None:
    """The learner's text of the call at `code`'s instruction `lasti`, its function and its
    arguments (`get(x, 12)`: `("get", "x, 12")`), where it is one line and short."""
    found = call_at(code, lasti)
    if found is None:
        return None
    source, call = found
    text, function = segment(source, call), segment(source, call.func)
    if "\n" in text or len(text) > _LONGEST or not text.startswith(function):
        return None
    return function, text[len(function):].strip()[1:-1]


# a call written longer than this is not repeated in the note's fix
_LONGEST = 60


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no jitted call of the cell met an index
    out of bounds at a user's line, or only at lines told of before (`told`: (file, line),
    kept by the loaded extension)."""
    settle()
    met = not_told(found, told)
    found.clear()
    if not met:
        return None
    m, others = met[0], more_lines(met)
    at, called = source_label(Site(m.file, m.line)), source_label(Site(*m.called))
    where = ("in an example of a vmapped batch, " if m.batched else "") + (
        f"in {m.function}, jitted (at {at}, called at {called}){others}" if m.function else
        f"in the body of {_loop(m)}, run eagerly (at {at}, the loop at {called}){others}")
    used = min(max(m.index, 0), m.size - m.window)
    if m.window > 1:
        side = "starts at " + (f"{m.size - m.window} at most" if m.index > 0 else "0 at least")
        did = "read" if m.use == "read" else "wrote the update at"
        title = (f"⚠ {_named(m)} moved its start {m.index} to {used} on axis {m.axis} "
                 f"{where}: a window of {m.window} on axis {m.axis} (size {m.size}) {side}, so "
                 f"it {did} [{used}:{used + m.window}], and raised nothing")
    else:
        past = "past the end" if m.index >= 0 else "before the start"
        then = ("JAX read the fill value instead" if m.did == "filled" else
                f"JAX read index {used} instead" if m.use == "read" else
                "JAX dropped this update" if m.did == "dropped" else
                f"JAX wrote the update at index {used} instead")
        title = (f"⚠ index {m.index} is {past} of axis {m.axis} (size {m.size}) {where}: "
                 f"{then}, where NumPy raises IndexError")
    return Note(title, body=_body(m), kind="info", details=True)


def _loop(m: Found) -> str:
    """The loop an eager Found's index was in, as the learner called it (`lax.fori_loop`)."""
    return m.call[0] if m.call else "the loop"


def _named(m: Found) -> str:
    """The function that indexed, as the learner called it: the lax function, else the
    primitive (a window read by jnp's indexing)."""
    name = m.named or m.primitive
    return f"lax.{name}" if name.startswith("dynamic") else name


def _body(m: Found) -> str:
    """Why JAX said nothing, how jxkernel knows, and the ways out: checkify to raise, a mode to
    say what is meant."""
    counted = (" (an index as the program saw it: JAX counts a negative index from the end "
               "once before)" if m.index < 0 else "")
    inside = "Inside jit" if m.function else f"Inside {_loop(m)}'s body, even outside jit,"
    why = (f"{inside} the index is traced: its value is known only when the compiled program "
           f"runs, so the trace could not check it (jax_check_static_indices looks at static "
           f"indices only), and the program raised nothing, since code running on an "
           f"accelerator cannot ({SHARP_BITS}){counted}. jxkernel found it by running the "
           "program's index checks on this call's arguments, as checkify does, while the "
           "notebook looks (at each cell's first calls, then a sample of a loop's: "
           "jax.config.update('jxkernel_watched_calls', 'all') looks at every one). ")
    function, args = m.call or ("f", "*args")
    stand_ins = "" if m.call else " (f: your jitted function, args: its arguments)"
    fix = (f"To have such a call raise, wrap the jitted function in checkify (from "
           f"jax.experimental import checkify){stand_ins}:\n    err, out = checkify.checkify("
           f"{function}, errors=checkify.index_checks)({args})\n    err.throw()\n")
    if not m.function:          # (an eager loop: checkify traces a function that runs it)
        loop = f"{function}({args})" if m.call else "your_loop(...)"
        fix = ("To have such a loop raise, run it inside a function given to checkify (from "
               "jax.experimental import checkify):\n    err, out = checkify.checkify("
               f"lambda: {loop}, errors=checkify.index_checks)()\n    err.throw()\n")
    if m.batched and m.use == "update":     # (JAX's own check fails there: not a way out)
        fix = ("JAX 0.10.2's checkify cannot check an update under vmap (its index check "
               "raises IndexError), so no wrapping makes this call raise. ")
    if m.window > 1:
        way = (f"Or keep each start from 0 to size - window: at most {m.size - m.window} on "
               f"axis {m.axis}.")
    elif m.use == "update" and m.did == "dropped":
        way = ("Where dropping is what you mean, say so, and this note is not shown: "
               "x.at[idx].set(v, mode='drop') (and so .add, .multiply, ...).")
    elif m.use == "update":
        way = f"Or keep each index from 0 to {m.size - 1} on axis {m.axis}."
    elif m.did == "filled":
        way = ("Where a fill value is what you mean, say so, and this note is not shown: "
               "jnp.take(x, idx, mode='fill', fill_value=...) or "
               "x.at[idx].get(mode='fill', fill_value=...).")
    else:
        way = ("To read a fill value there instead of the clamped element: "
               "x.at[idx].get(mode='fill', fill_value=...) in place of x[idx].")
    return why + fix + way
