"""The note under a cell that made one of your compiled functions compile again.

A `%%jit` cell says what it compiled itself (magics/jit.py); any other cell gets, after it ran
(IPython's post_run_cell), one line per cell naming the function, what changed and the fix,
with the details (each change, its fix as code, the call's line) on click:

    ⚙ f_jit compiled again (compile #2, at In[7]:2): y: weak_type f32[] (weak) -> i32[] (weak) · fix: Pass the same kind every time.

What is noted follows `config.jxkernel_compile_notes` (`%jxnotes`):

    recompiles   (default) a second compile or later of your functions; a first compile and
                 a cache hit say nothing
    all          first compiles too, and a line for the eager operations and jxkernel's own
                 functions the cell compiled (grouped: one entry per primitive or function),
                 and one for libraries' own (registered as excluded, as Flax's)
    off          nothing

As JAX's jax_explain_cache_misses leaves out its internal misses, a compile of a function
defined inside jxkernel (random's samplers, jnp's jitted helpers), in an installed package
(treescope's, Optax's: CompileEvent.package) or a library registered as excluded
(source_info.register_exclusion), or of one eager operation is never told as yours: its
static arguments are not yours to change (compile_record.whose, as %jxcompiles and the status
bar count them). `all` lists them, each at the line of yours that ran it.
"""
from __future__ import annotations

import collections
import logging
import os
import re
import sys
import types

from ...core import compile_record, miss_words
from ...core.compile_record import USER
from ...core.config import config
from ...core.source_info import TIMEIT_FILE, real_jax
from ...as_jax import JaxModule
from ...tree_util import is_tree_node
from ...views.error_cards.methods import pytree_registration, static_fields
from ...views.outside_values import stale_reads
from ...views.recompile_explainer import explanation_text
from ...views.signature_changes.fixes import ADDS_TO_THE_FIX, PATTERN_SAID
from ...views.source import defined_at
from ..display import Note, name_of, source_label, source_line

MODES = ("all", "recompiles", "off")


def fix_in_brief(fix: str) -> str:
    """What to do, from a Change's fix: its last sentence (the fixes say the cause first),
    before the sentence saying its code is a pattern (PATTERN_SAID: no advice of its own),
    with the one before it where the last only adds to it (ADDS_TO_THE_FIX).

        >>> fix_in_brief("Every new shape compiles anew. Pad or bucket x to a few fixed sizes.")
        'Pad or bucket x to a few fixed sizes.'
        >>> fix_in_brief("New shapes compile anew. Pad x. Its dtype changed too: cast it as well.")
        'Pad x. Its dtype changed too: cast it as well.'
    """
    fix = fix.strip().removesuffix(PATTERN_SAID.strip())
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", fix.strip())
    if len(sentences) > 1 and sentences[-1].startswith(ADDS_TO_THE_FIX):
        return " ".join(sentences[-2:])
    return sentences[-1] if sentences else ""


def where(event) -> str:
    """'In[7]:2', the learner's line whose call compiled `event` ('' when unknown): the
    cell's line that called into a library, where the call itself was the library's (nnx.jit's
    step: JAX's log names Flax's compilation.py:852; CompileEvent.learners_line)."""
    site = event.learners_line
    return source_label(site) if site is not None else ""


def _changes(event) -> tuple:
    """`event`'s changes in the learner's words where a library's jit compiled the learner's
    function (eqx.filter_jit's "dynamic_nodonate['rest'][13]" said "x": said_changes)."""
    return event.said_changes


def reason_said(event) -> str:
    """`event`'s one-line reason with the learner's paths (learner_paths) for a library's
    jit of the learner's function: "x: f32[8] -> f32[5]" where JAX's log reason says
    "dynamic_nodonate['rest'][13]: ..."; the reason as logged otherwise (_reason_here)."""
    if event.learner_function is None or not event.learner_paths:
        return _reason_here(event)
    names = dict(event.learner_paths)
    # longest first, and never inside a longer path: ['rest'][1] is not ['rest'][13]'s start
    pattern = "|".join(re.escape(p) for p in sorted(names, key=len, reverse=True))
    return re.sub(f"(?:{pattern})(?![\\w\\[])", lambda m: names[m.group(0)],
                  _reason_here(event))


def _reason_here(event) -> str:
    """`event`'s reason as logged; on the NumPy backend in its words, where the explainer's
    own reasons say compiled (a pmap's "compiled again for its arguments' layout", a trace
    made before "compiled now, without tracing again"): miss_words.traced_said."""
    if miss_words.compiles(event.backend):
        return event.reason
    return miss_words.traced_said(event.reason)


def signature_said(event) -> str:
    """`event`'s signature as the notes write it: with the learner's paths (learner_paths),
    and a library's static argument holding the learner's function said in words, not as
    the library's tuple of treedefs (JAX's log writes it whole)."""
    if event.learner_function is None:
        return compile_record.signature_text(event.signature)
    names = dict(event.learner_paths)
    return ", ".join(
        f"{names.get(path, path)}: {aval}" if not aval.startswith("static ") else
        f"{path}: {event.function} and the arguments' parts that are not arrays"
        for path, aval in event.signature)


def change_line(event) -> str:
    """What changed, in one line: the first change and its fix in brief (none for a compile
    the user's line asked for: explicit_compile), else the reason."""
    changes = _changes(event)
    if not changes:
        return _traced_as_new(event) or _reason_here(event)
    first = changes[0]
    more = f" (and {len(changes) - 1} more)" if len(changes) > 1 else ""
    fix = "" if explicit_compile(event) else fix_in_brief(first.fix)
    return f"{first}{more}" + (f" · fix: {fix}" if fix else "")


_COMPILE_CALL = re.compile(r"\.compile\(")


def explicit_compile(event) -> bool:
    """Whether the user's line compiled `event` ahead of time, `jax.jit(f, ...).lower(7)
    .compile()` or `lowered.compile()`: a compile asked for, not one a call made anew, so no
    fix is owed ("Treat it one way in every call" was said of one). JAX 0.10.2's
    jax_explain_cache_misses logs its tracing miss all the same
    (tests/data/aot_compile_log_reference.json), so the note keeps what changed. Told by its
    lowering logged at `.lower()` and `.compile(` on the line that compiled it."""
    return bool(event.logged_at_lowering and event.learners_line is not None and
                _COMPILE_CALL.search(source_line(event.learners_line)))


def _traced_as_new(event) -> str | None:
    """Why a function that compiled before compiled as a function never seen (JAX's log says
    "never seen function" for it too): its caches were cleared since (jax.clear_caches() or
    its .clear_cache(): JAX's log names the same id again), or a trace of it made before its
    other compiles (eval_shape's, `.trace`'s, `.lower`'s: its miss logged there) compiled
    now; None for any other compile.

        >>> e = compile_record.CompileEvent("f", "a.py:1", (), "first call", None, "cpu", nth=2)
        >>> print(_traced_as_new(e))
        its caches were cleared (jax.clear_caches() or its .clear_cache()): traced anew, as a function never seen (JAX's log: "never seen function", the same id)
    """
    if event.reason != "first call" or event.changes or event.nth < 2 or not event.miss:
        return None
    if event.traced_at is not None:     # (on the NumPy backend, run: nothing compiles)
        return ("its trace made before (by eval_shape, .trace or .lower, where its miss was "
                "logged) " + ("compiled" if miss_words.compiles(event.backend) else "run") +
                " now")
    return ("its caches were cleared (jax.clear_caches() or its .clear_cache()): traced anew, "
            "as a function never seen (JAX's log: \"never seen function\", the same id)")


def _details(event, run=()) -> str:
    """The whole story of one compile: the call's line, each change with its fix and code,
    the signature and the time (of the whole `run` of compiles telling the same story)."""
    if len(run) > 1 and event.compiled:
        lines = _details(event).splitlines()
        lines[-1] = (f"{miss_words.did(event.backend)} for ({signature_said(event)}) "
                     f"{len(run)} times, in {sum(e.total_s for e in run) * 1e3:.1f} ms in all "
                     f"({_came_from(event)})")
        return "\n".join(lines)
    lines = []
    if event.learners_line is not None:
        line = source_line(event.learners_line)
        lines.append(f"called at {where(event)}" + (f":  {line}" if line else ""))
    if event.learner_function and event.source:     # a library's jit of it: eqx.filter_jit's
        lines.append(f"{event.function} defined at {defined_at(event.learner_function)}, "
                     f"{miss_words.did(event.backend)} through {_library_of(event.source)}'s "
                     f"jit (JAX's log names "
                     f"{defined_at(event.source)})")
    elif (event.source or "").startswith(TIMEIT_FILE + ":"):
        # the code IPython's %timeit compiles of the learner's statement: its line is the
        # cell's that ran the magic, above
        lines.append(f"{event.function} defined in the %timeit statement (JAX's log names "
                     f"{event.source})")
    elif event.source:
        lines.append(f"{event.function} defined at {defined_at(event.source)}")
    elif event.call_source:
        lines.append(f"{_named(event)}: its class's __call__ defined at "
                     f"{defined_at(event.call_source)} (JAX's jax_explain_cache_misses log "
                     f"names a jitted object <unknown>, defined nowhere)")
    if _changes(event) and explicit_compile(event):
        lines.append("what changed since the nearest earlier compile (compiled ahead of time, "
                     "as this line asked; JAX's jax_explain_cache_misses logs its tracing "
                     "miss too):")
        lines += [f"  {c}" for c in _changes(event)]
    elif _changes(event):
        since = "compile" if _compiles(event) and _compiled_before(event) else "trace"
        lines.append(f"what changed since the nearest earlier {since}, and the fix:")
        lines.append(explanation_text(_changes(event)))
    elif event.reason != "first call":
        lines.append(f"what changed: {_reason_here(event)}")
    elif _traced_as_new(event):
        lines.append(f"why: {_traced_as_new(event)}")
    if not event.compiled and _stage_only(event):   # eval_shape's, make_jaxpr's trace
        lines.append(f"traced for ({signature_said(event)}) by jax.{event.inlined_into}, "
                     f"{_STAGE_ONLY[_stage_only(event)]}: nothing compiled (JAX compiles "
                     f"nothing here either); {event.function} called with these arguments "
                     f"{'compiles' if miss_words.compiles(event.backend) else 'runs'} this "
                     f"trace then, without tracing it again")
        return "\n".join(lines)
    if not event.compiled:      # a retrace inside another traced function
        lines.append(f"traced for ({signature_said(event)}) inside "
                     f"{event.inlined_into}: nothing compiled of its own (it is part of "
                     f"that one's program" +
                     (", if that compiles)" if miss_words.compiles(event.backend) else ")"))
        return "\n".join(lines)
    lines.append(f"{miss_words.did(event.backend)} for ({signature_said(event)}) in "
                 f"{event.total_s * 1e3:.1f} ms ({_came_from(event)})")
    return "\n".join(lines)


# what a miss on the NumPy backend did, where XLA's says where its program came from
NOTHING_COMPILED = "the numpy backend compiles nothing: NumPy runs the jaxpr"


def _came_from(event) -> str:
    """Where `event`'s program came from, as its details' last line ends: "compiled",
    "memory", "disk"; on the NumPy backend what happened there, after that line's "traced
    for" (not "traced" twice)."""
    came = miss_words.came_from(event)
    if miss_words.compiles(event.backend):
        return came
    return NOTHING_COMPILED if came == miss_words.did(event.backend) else \
        f"{came}: {NOTHING_COMPILED}"
# traces that compile nothing, around a jit traced inside them: what each is for
_STAGE_ONLY = miss_words.STAGE_ONLY
_stage_only = miss_words.stage_only


def _compiles(event) -> bool:
    """Whether `event` compiled a program of its own: not a trace inside another, nor a miss
    on the NumPy backend (which traces only)."""
    return event.compiled and miss_words.compiles(event.backend)


def _library_of(source: str) -> str:
    """The library whose file `source` is ("equinox"), else the file as defined_at says it."""
    return compile_record.installed_package(source.rpartition(":")[0] or source) or \
        defined_at(source)


def _named(event) -> str:
    """What compiled, by name: "f", or "a Model object" for a jitted callable object (its
    name is its class's: the class itself was not jitted)."""
    if not event.call_source:
        return event.function
    kind = event.call_class      # JAX names the jit "<unnamed function>": the class here
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind} object"


def short_reason(event) -> str:
    """Why `event` compiled, in the few words the note's title says: "a new jit object" for a
    jit made anew of code compiled before (its own record says "first call": JAX's "never
    seen function", this function object), else its reason ("first call", "x: f32[3] ->
    f32[4]"). %timeit's lines name compiles in these words, so they count what the note
    counts."""
    if event.again and any(c.kind == "fresh_jit" for c in _changes(event)):
        return "a new jit object"
    return event.reason


def _title(event, times: int = 1) -> str:
    """The line a compile is told by; `times` > 1: the first of that many compiles of one
    story (_same_story), "compiled again ×3"."""
    at = f", at {where(event)}" if where(event) else ""
    if times > 1 and event.again:
        return _title(event).replace(" again (", f" again ×{times} (", 1)
    if not event.compiled and _stage_only(event):   # by eval_shape: nothing compiles
        by = f"by jax.{_stage_only(event)}, {_STAGE_ONLY[_stage_only(event)]}{at}"
        if event.again:
            return f"⚙ {_named(event)} traced again ({by}): {change_line(event)}"
        return f"⚙ {_named(event)} traced ({signature_said(event)}, {by})"
    if not event.compiled:      # traced anew inside jit(outer): nothing compiled of its own
        if event.again:
            return (f"⚙ {_named(event)} traced again (inside {event.inlined_into}{at}): "
                    f"{change_line(event)}")
        return (f"⚙ {_named(event)} traced ({signature_said(event)}"
                f", inside {event.inlined_into}{at})")
    did, a_miss = miss_words.did(event.backend), miss_words.a_miss(event.backend)
    if event.again and not _compiled_before(event):
        # on the NumPy backend it traces again: its first program of its own, not its first
        # miss (its earlier trace missed too)
        first = f"{did} (first {a_miss}" if miss_words.compiles(event.backend) else \
            f"{did} again (first program of its own"
        return f"⚙ {_named(event)} {first}, traced before{at}): {change_line(event)}"
    if event.again:
        # a new jit object of code compiled before is its own first compile, and a log
        # cleared since (%jxcompiles --clear) counts afresh: no number then
        fresh = any(c.kind == "fresh_jit" for c in _changes(event)) or _other_jit(event)
        nth = f"{a_miss} #{event.nth}" if event.nth > 1 else \
            "a new jit object" if fresh else "the log was cleared since its first"
        return f"⚙ {_named(event)} {did} again ({nth}{at}): {change_line(event)}"
    return (f"⚙ {_named(event)} {did} ({signature_said(event)}"
            f"{at}) in {event.total_s * 1e3:.1f} ms")


def _compiled_before(event) -> bool:
    """Whether `event`'s function compiled before: an earlier compile in the log, another jit
    object's of the same code, or one the log was cleared of since. Else it was only traced
    before (by eval_shape, make_jaxpr, `.trace`, inside another jit), and what changed is told
    against that trace's cache key, as JAX's log tells its miss."""
    return event.nth > 1 or any(c.kind == "fresh_jit" for c in _changes(event)) or \
        _other_jit(event) or compile_record.compiled_before_clear(event)


def _other_jit(event) -> bool:
    """Whether the log holds an earlier compile of `event`'s function by another jit object
    (`jax.jit(f)(3)`, then `jax.jit(f, static_argnums=0).lower(7).compile()`: the new jit's
    first compile, explained against the other's): then nothing was cleared, and its count
    is its own jit's, 1."""
    # (a library's jit of the learner's function by where the learner's was defined: every
    # eqx.filter_jit'd function's source is Equinox's fun_wrapped)
    return any(e.seq < event.seq and e.key is not event.key and
               (e.learner_function or e.source) == (event.learner_function or event.source)
               for e in compile_record.compile_events(event.function))


# how the notes, %jxcompiles and the status bar tell apart the compiles that are not the
# learner's: compile_record.whose, one answer for all three. A function of an installed
# package (treescope's summaries under nnx.display, Optax's helpers) is the library's, though
# JAX's log counts it as the user's: its arguments are not the learner's to pad or make
# static ("fix: pad the arrays" under nnx.display was advice a learner could not follow)
LIBRARY = compile_record.LIBRARY
OTHER_KINDS = {compile_record.EAGER: "eager operations",
               compile_record.INTERNAL: "jxkernel's own functions, for your calls",
               LIBRARY: "libraries' own functions, for your calls"}
kind_of = compile_record.whose


def packages_text(events) -> str:
    """The packages whose functions `events` compiled, as a folded group's count names them:
    ', in flax, optax'; '' for none."""
    names = list(dict.fromkeys(e.package for e in events if e.package))
    return f", in {', '.join(names)}" if names else ""


def grouped(events) -> list:
    """[(name, count, call sites, seconds)] of eager operations and jxkernel's or libraries'
    functions, one entry per primitive or function, in first-seen order: three eager adds at
    In[4]:1 and a slice at In[4]:2 are
    [('add', 3, ['In[4]:1'], ...), ('slice', 1, ['In[4]:2'], ...)]."""
    rows: dict = collections.OrderedDict()
    for e in events:
        name = e.function[: -len(" (eager)")] if e.function.endswith(" (eager)") else e.function
        if e.package and e.origin != compile_record.EAGER:     # marked as the library's
            name = f"{name} ({e.package})"
        row = rows.setdefault(name, [name, 0, [], 0.0])
        row[1] += 1
        row[3] += e.total_s
        site = where(e)
        if site and site not in row[2]:
            row[2].append(site)
    return [tuple(r) for r in rows.values()]


def grouped_text(events) -> str:
    """'add ×3, slice' (call sites in brackets where known)."""
    return ", ".join(name + (f" ×{n}" if n > 1 else "") + (f" [{', '.join(sites[:3])}]"
                                                          if sites else "")
                     for name, n, sites, _ in grouped(events))


def cell_note(events, mode: str, skip=(), dropped: int = 0) -> Note | None:
    """The note of a cell that logged `events` (oldest first), or None: nothing to say.
    `skip`: keys of functions that noted their compiles themselves (%%jit cells); `dropped`:
    how many of the cell's earlier events the log no longer keeps (its counts leave them out,
    and the title says so)."""
    if mode == "off":
        return None
    skipped = {id(k) for k in skip}
    mine = [e for e in events if kind_of(e) == USER and id(e.key) not in skipped]
    told = [e for e in mine if mode == "all" or e.again]
    others = [e for e in events if kind_of(e) != USER] if mode == "all" else []
    if not told and not others:
        return None
    runs = _same_story(told)
    # one story (one compile, or a jit made anew in a loop N times) is its own title: a
    # header counting them above the same line again would say it twice
    one_story = len(runs) == 1 and (mode == "recompiles" or len(told) == 1)
    bodies, fixes_told = [], set()
    for r in runs[:DETAILED]:
        # a loop's next shapes at the same line, with the same fix: their titles only (the
        # whole story, its fix's code, told once above)
        fix = (where(r[0]), _changes(r[0])[0].fix) if _changes(r[0]) else None
        if not one_story and fix is not None and fix in fixes_told:
            bodies.append(f"{_title(r[0], len(r)).split(' · fix: ')[0]} · the same fix as "
                          f"above")
            continue
        fixes_told.add(fix)
        bodies.append(_details(r[0], r) if one_story else
                      f"{_title(r[0], len(r))}\n{_indent(_details(r[0], r))}")
    bodies += _one_line_each(runs[DETAILED:])
    rest = []
    # the NumPy backend compiles none of them: each is a cache miss, traced (miss_words)
    numpy = miss_words.any_numpy(others)
    for kind, group in OTHER_KINDS.items():
        mine = [e for e in others if kind_of(e) == kind]
        if mine and kind == compile_record.EAGER:
            rest.append(f"{len(mine)} eager operation(s) (each {'traced' if numpy else 'compiled'}"
                        f" once per operand types and parameters): {grouped_text(mine)}")
        elif mine:
            rest.append(f"{miss_words.misses(len(mine), numpy, 'compile(s)')} of {group}: "
                        f"{grouped_text(mine)}")
    if one_story:
        title = _title(runs[0][0], len(runs[0]))
    elif told:
        again = sum(e.again for e in told)
        names = ", ".join(dict.fromkeys(map(_named, told)))
        many = f" ({names})" if names != _named(told[0]) else ""
        # a body or jit traced anew inside another program compiles nothing of its own, and a
        # function traced before but never compiled compiles for the first time: JAX's word
        # for them all, cache misses, where they mix
        missed = [e for e in told if e.again]
        what = "recompile(s)" if all(_compiles(e) and _compiled_before(e) for e in missed) else \
            "retrace(s)" if not any(e.compiled for e in missed) else "cache miss(es)"
        title = (f"⚙ {again} {what} in this cell{many}: {_named(told[0])}: "
                 f"{change_line(told[0])}" if mode == "recompiles" else
                 f"⚙ {miss_words.misses(len(told), miss_words.any_numpy(told), 'compile(s)')} "
                 f"of your functions in this cell ({again} again): "
                 f"{names}")
    else:
        whose = "jxkernel's or libraries'" if any(kind_of(e) == LIBRARY for e in others) \
            else "jxkernel"
        title = (f"⚙ this cell {'traced' if numpy else 'compiled'} {len(others)} eager "
                 f"operation(s) and {whose} function(s)")
    if dropped:
        title += (f" (counting only what the compile log still keeps: this cell's first "
                  f"{dropped:,} events are past the last {compile_record.MAX_EVENTS:,} it keeps)")
    return Note(title, body="\n".join(bodies + rest), kind="compile", details=True)


# a loop that compiles on every step (a static argument per step, a shape per batch): the
# first compiles in full, the next ones a line each, then a count -- not hundreds of the same
# story under one cell
DETAILED, LISTED = 3, 10


def _same_story(events) -> list:
    """`events` in runs that tell one story: the same function compiled again at the same
    line for the same change (a jit made anew in a loop, %timeit's runs of one): a new jit
    object twenty times is one story told once with its count, not twenty copies of it."""
    runs: dict = {}
    for e in events:
        # one jit object's compiles, or jit objects made anew of one code (a new jit object
        # each time): two jits of one function (jit(hessian(f)), jit(partial(f, c=2))) that
        # recompile for the same new shape are two stories
        fresh = any(c.kind == "fresh_jit" for c in _changes(e))
        story = (e.function, e.source, where(e), e.compiled, e.again, change_line(e),
                 signature_said(e), None if fresh else id(e.key))
        runs.setdefault(story, []).append(e)
    return list(runs.values())


def _one_line_each(runs) -> list:
    """The runs past the first DETAILED: their titles, LISTED at most, then how many more
    compiles and where the whole log is."""
    lines = [_title(r[0], len(r)) for r in runs[:LISTED]]
    if len(runs) > LISTED:
        more = sum(map(len, runs[LISTED:]))
        lines.append(f"… and {more} more (%jxcompiles lists them all)")
    return lines


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def stale_note(stale) -> Note | None:
    """A note for values your traced functions read from outside that changed since their
    trace: the program keeps the old value (JAX's too), which a learner rarely expects."""
    if not stale:
        return None
    lines = []
    for s in stale:
        at = source_label(s.call_site) if s.call_site is not None else ""
        inside = getattr(s.traced_at, "inlined_into", None)
        # (the NumPy backend compiles nothing: the program its trace made)
        numpy = not miss_words.compiles(getattr(s.traced_at, "backend", None) or "cpu")
        kept = (f"its trace, in {inside}'s program and reused by its later calls and by any "
                f"jit calling it (for the same types)," if inside and s.inner_jit else
                f"{inside}'s kept trace of it" if inside else
                # an earlier trace's program (for other argument types) is kept too
                f"the program {'made' if numpy else 'compiled'} at that trace" if s.earlier
                else "its program" if numpy else "its compiled program")
        through = f" (in {s.helper}, which it calls)" if s.helper else ""
        lines.append(f"⚠ {s.function} read {s.name} = {s.then}{through} when traced"
                     f"{f' (at {at})' if at else ''}; {s.name} is {s.now} now, and {kept} "
                     f"{s.kept_said()}")
    first = stale[0]
    if getattr(first.traced_at, "inlined_into", None) and not first.inner_jit:  # a loop body
        how = (f" of the body: in the carry of a loop (its init holds {first.name}), an "
               f"operand of lax.cond or lax.switch.")
    elif first.field == "global":       # cfg.lr: the field passed, in the function's own name
        attr = first.name.split(".", 1)[1]
        fun, helper = first.function, first.helper
        how = (f":\n  def {helper}(..., {attr}): ...    # {attr} in place of {first.name}\n"
               f"  def {fun}(..., {attr}): ...  # calls {helper}(..., {attr}); then call "
               f"{fun}(..., {first.name})" if helper and fun.isidentifier() else
               f":\n  def {fun}(..., {attr}): ...    # {attr} in place of {first.name}; then "
               f"call {fun}(..., {first.name})" if fun.isidentifier() else
               f" ({attr} as a parameter of the function, {first.name} passed in each call).")
    elif first.helper and first.function.isidentifier():
        how = (f", to {first.function} and on to {first.helper}:\n"
               f"  def {first.helper}(..., {first.name}): ...\n"
               f"  def {first.function}(..., {first.name}): ...  # calls {first.helper}(..., "
               f"{first.name}); then call {first.function}(..., {first.name})")
    elif first.helper:
        how = (f" ({first.name} as a parameter of the function and of {first.helper}, passed "
               f"on in each call).")
    elif first.function.isidentifier():
        how = (f":\n  def {first.function}(..., {first.name}): ...    # then call "
               f"{first.function}(..., {first.name})")
    else:
        how = f" ({first.name} as a parameter of the function, passed in each call)."
    what = "Ref" if first.ref else "value"      # (a Ref passed is each call's own to write)
    held = first.static() if first.static is not None and first.field != "global" else None
    reads = "globals, closure variables and the fields of objects it names" \
        if first.field == "global" else "globals and closure variables"
    body = _static_field_body(first, held) if held is not None else (
        f"A traced function reads {reads} once, while it is traced: "
        f"{first.baked_said()}, as in JAX. Calls reuse that program, and the old {what}, "
        f"until something makes the function trace again (a new shape, a new function "
        f"object). To use the current {what} on every call, pass it as an argument{how}")
    return Note(lines[0] if len(lines) == 1 else f"⚠ {len(lines)} values read by traced "
                f"functions changed since their trace: " + "; ".join(
                    f"{s.function}: {s.name}" for s in stale),
                body="\n".join(lines[1:] + [body]) if len(lines) > 1 else body,
                kind="compile", details=True)


def _static_field_body(stale, obj) -> str:
    """Why a field of a static argument hashed by identity, or of the object a jitted bound
    method or callable object runs on (`obj`, read as `stale.name`, "self.w"), kept its old
    value, and the fix JAX's gotchas page gives: the class a pytree, the object passed traced
    (tests/data/stale_static_cases.py: JAX 0.10.2's results)."""
    param, kind, fun = stale.name.split(".", 1)[0], type(obj).__name__, stale.function
    pytree = is_tree_node(type(obj))      # a pytree already (Flax's, Equinox's modules)
    if stale.field == "keyed":      # hashed by its fields, set in place: the key changed
        return (f"{param} is a static argument of {fun}, hashed by its fields ({kind}'s "
                f"__hash__ and ==), and {stale.name} was set in place: jit keeps that object "
                f"as the key of the program traced with the old value, so the key changed "
                f"with it, and the calls with {param} (or any {kind} equal to it now) find that "
                f"program, as in JAX. Set no field of a static argument in place: make a new "
                f"{kind} for a new value; and clear the program kept under the changed key, "
                f"once (a new {kind} alone still finds it):\n"
                f"  jax.clear_caches()    # once; then a new {kind} for each new value")
    if stale.field == "bound":      # jax.jit(m.predict), jax.jit(m): the key is the function
        name = "jitted" if fun.startswith("__") else fun
        jitted = f"A {kind} was jitted as a callable (jax.jit(obj), its __call__ bound to it)" \
            if fun == "__call__" else f"{fun} was jitted bound to its object (jax.jit(obj.{fun}))"
        made = f"{kind} is a pytree already" if pytree else \
            f"{kind} a pytree (its numbers and arrays traced, its other fields static)"
        why = (f"{jitted}: jit's key is that function, not the object's fields, so its "
               f"trace read {stale.name} once and the calls reuse the program with the old "
               f"value, as in JAX. Jit the class's function and pass the object to it, "
               f"{made}: each call then computes with the fields it is given")
        # (a library's class is not a name of the learner's: type(m) is, m their object's)
        held = name_of(obj, getattr(sys.modules.get("__main__"), "__dict__", {}))
        cls = kind if type(obj).__module__ == "__main__" or held is None else f"type({held})"
        last = f"{name} = jax.jit({cls}.{fun})    # called as {name}({held or 'obj'}, ...)"
        comment = f"then jit {kind}.{fun} itself"
    else:
        why = (f"{param} is a static argument of {fun}, and {kind} keeps object's own hash "
               f"and == (by identity): the same object with a field set anew is the same "
               f"static value, so jit reuses the program traced with the old {stale.name}, as "
               f"in JAX (its gotchas page: marking self as static). Make {kind} a pytree, its "
               f"numbers and arrays traced and its other fields static, and take {param} out "
               f"of the jit's static arguments: each call then computes with the fields it "
               f"is given")
        last, comment = "", f"and {param} static no more"
    if pytree:
        code = last or f"# {kind} is a pytree already: {comment}"
    else:
        unhashable = [f for f, v in static_fields(obj) if not _hashable(v)]
        if unhashable:     # aux data must hash: a list field would make the fix fail in jit
            return (f"{why}; its fields {', '.join(unhashable)} would be static and must "
                    f"hash and compare by value (a tuple, not a list).")
        code = pytree_registration(obj, comment) + (f"\n{last}" if last else "")
    return f"{why}:\n" + "\n".join("  " + line if line else "" for line in code.splitlines())


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def real_jax_note(user_ns: dict | None = None) -> Note | None:
    """A note where the real JAX is imported beside jxkernel (`%load_ext jxkernel`, then
    `import jax` in a plain kernel): its jit compiles in JAX's own caches, which jxkernel
    does not see, so no note would ever say why a function of it compiled again. Where the
    user's `jax` (in `user_ns`) is jxkernel, a library imported JAX (`import optax`): the note
    names it, as computing with JAX, which refuses jxkernel's arrays. None where `jax` is
    jxkernel's alias (install_as_jax, the kernel "Python 3 (JAX on jxkernel)"), a JaxModule,
    or is not imported."""
    module = real_jax()
    if module is None:
        return None
    path, version = module.__file__, getattr(module, "__version__", "?")
    mine = (user_ns or {}).get("jax")
    jxkernel_is_jax = isinstance(mine, JaxModule) or getattr(mine, "__name__", None) == \
        "jxkernel"
    libraries = _on_real_jax(user_ns or {}) if mine is None or jxkernel_is_jax else []
    if jxkernel_is_jax or libraries:
        return _library_on_real_jax_note(libraries, version, path, jxkernel_is_jax)
    return Note(f"ⓘ jax here is the real JAX {version}, not jxkernel: its jit's compiles are "
                f"its own, and no note will say why they compile again",
                body=f"jax was imported from {os.path.dirname(path)}. For jxkernel's notes "
                     f"and views: `import jxkernel as jax, jxkernel.numpy as jnp`; or "
                     f"restart the kernel and run `import jxkernel; "
                     f"jxkernel.install_as_jax()` before anything imports jax; or choose the "
                     f"kernel \"Python 3 (JAX on jxkernel)\". JAX's own log of why: "
                     f"jax.config.update('jax_explain_cache_misses', True).",
                kind="info", details=True)


def _library_on_real_jax_note(libraries: list, version: str, path: str,
                              jxkernel_is_jax: bool) -> Note:
    """real_jax_note where `libraries` (their names; none found: "a library") imported the
    real JAX, and the user's `jax` is jxkernel or not yet imported. JAX 0.10.2's words given
    jxkernel's arrays: tests/data/mixed_arrays_reference.json."""
    named = " and ".join(libraries) or "a library"
    first = libraries[0] if libraries else "the library"
    return Note(
        f"ⓘ {named} imported the real JAX {version} and compute{'s' * (len(libraries) < 2)} "
        f"with it{', while your jax here is jxkernel' if jxkernel_is_jax else ''}",
        body=f"jax was imported from {os.path.dirname(path)}. JAX's functions do not take "
             f"jxkernel's arrays (\"is not a valid JAX type\", or an error inside JAX): "
             f"{named} given them raises, or hands back JAX's arrays. To run {named} on "
             f"jxkernel, with its notes and views: restart the kernel and run `import "
             f"jxkernel; jxkernel.install_as_jax()` before importing {first} (its `import "
             f"jax` then gives jxkernel), or choose the kernel \"Python 3 (JAX on "
             f"jxkernel)\". To use the real JAX throughout instead: `import jax, jax.numpy as "
             f"jnp` (no notes of jxkernel's then).",
        kind="info", details=True)


def _on_real_jax(user_ns: dict) -> list:
    """The packages of the user's names (a module, or a class or function of one: `optax`,
    `from optax import adam`) one of whose modules holds the real JAX's (`import jax` in
    optax's own), sorted.

        >>> _on_real_jax({"np": __import__("numpy")})
        []
    """
    tops = set()
    for value in list(user_ns.values()):
        name = getattr(value, "__name__" if isinstance(value, types.ModuleType) else
                       "__module__", None)
        if isinstance(name, str):
            tops.add(name.partition(".")[0])
    tops -= {"jax", "jxkernel", "builtins", "__main__"}
    found = set()
    for name, module in list(sys.modules.items()):
        top = name.partition(".")[0]
        if top in tops and top not in found and any(
                isinstance(v, types.ModuleType) and _is_jax(v.__name__)
                for v in list(getattr(module, "__dict__", {}).values())):
            found.add(top)
    return sorted(found)


def _is_jax(name) -> bool:
    return isinstance(name, str) and (name == "jax" or name.startswith("jax."))


class CellWatch:
    """The compile log between a cell's start and end (IPython's pre/post_run_cell)."""

    def __init__(self):
        self.start = compile_record.last_seq() + 1
        self.running = False            # between a cell's start and its end
        self.real_jax_told = False      # said once per shell: a note each cell would be noise
        self.left_out: set = set()   # seqs left out: %timeit's warm-up's (magics/timing.py)

    def cell_started(self) -> None:
        self.start = compile_record.last_seq() + 1
        self.running = True

    def cell_finished(self, skip=()) -> Note | None:
        """The note of the cell that just ran (None: nothing to note)."""
        self.running = False
        kept = compile_record.events_since(self.start)
        events = [e for e in kept if e.seq not in self.left_out]
        # the log keeps its last MAX_EVENTS events: a cell that logged more (a %timeit of a
        # jit made anew per call) has lost its first ones, which no count here may claim
        dropped = 0 if not kept else kept[0].seq - self.start - sum(
            self.start <= s < kept[0].seq for s in self.left_out)
        self.start, self.left_out = compile_record.last_seq() + 1, set()
        return cell_note(events, config.jxkernel_compile_notes, skip, dropped) if events \
            else None

    def stale_finished(self) -> Note | None:
        """The note of values read from outside that changed since a trace (checked after
        every cell: the cell that rebinds a global need not call the function)."""
        stale = stale_reads()
        return stale_note(stale) if config.jxkernel_compile_notes != "off" else None

    def real_jax_finished(self, user_ns: dict | None = None) -> Note | None:
        """The note that the real JAX is imported (real_jax_note, of the user's names
        `user_ns`), after the first cell that finds it imported; None after that, or with the
        notes off."""
        if self.real_jax_told or config.jxkernel_compile_notes == "off":
            return None
        note = real_jax_note(user_ns)
        self.real_jax_told = note is not None
        return note


class FixesInTheNote(logging.Filter):
    """jax_explain_cache_misses's log in JAX's words alone while a cell runs with the notes on:
    the cell's note tells each difference's fix and its code, which jxkernel's lines in the
    log (compile_record._log_miss: the record's `jax_words` is JAX's message without them)
    would say a second time in the same output. Outside a cell no note tells them."""

    def __init__(self, watch: CellWatch):
        super().__init__()
        self.watch = watch

    def filter(self, record) -> bool:
        jax_words = getattr(record, "jax_words", None)
        if jax_words and self.watch.running and config.jxkernel_compile_notes != "off":
            record.msg, record.args = jax_words, ()
        return True
