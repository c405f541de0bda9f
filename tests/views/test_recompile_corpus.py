"""The recompile explainer against JAX 0.10.2, scenario by scenario.

tests/data/recompile_cases.py holds the scenarios (source text, run with `jax` = jxkernel
here); tests/data/recompile_reference.json what JAX logged for each with
`jax_explain_cache_misses` on (reference/make_recompile_reference.py). For each scenario:

* jxkernel's compile events of the scenario's functions are as many as JAX's tracing-cache
  misses (a checkpointed function's own traces are logged, not events: CHECKPOINT_TRACES);
* each event's explanation names the cause JAX names for the same miss: a first call (or a
  new function object of the same code, `fresh_jit`) where JAX says "never seen function";
  the same leaves and kinds (shape, dtype, weak type) where JAX lists "different input
  types"; a static value, a static/traced flip or a structure change where JAX says
  "different input pytree"; the same config option where JAX says "Tracing context doesn't
  match" -- and no cause JAX does not name. A `constant` change (a closed-over value that
  differs) is a note, not a cause: it rides along with a miss JAX explains otherwise;
* with jax_explain_cache_misses on, "never seen function" is logged where JAX logs it;
* the programs compiled for the scenario's functions are as many as JAX lowers.

Then the fixes (they must apply: never static_argnums for an array, never "trace it" for a
string), the log of the user's functions only, RecompileError's text, and two %%jit cells.
"""
import collections
import functools
import itertools
import linecache
import os
import re

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log, config
from jxkernel.errors import RecompileError

from recompile_cases import FILE_PREFIX, RAISES, SCENARIOS, run   # tests/data, on pytest's pythonpath
from logged import logged_messages      # tests/support
from backend_tier import cases_marked   # tests/support
import locations  # tests/support: the repository's folders


REFERENCE = locations.jax_answers("recompile_reference.json")["scenarios"]

# jxkernel kind -> the kind of miss JAX logs for it
JAX_KIND = {"shape": "types", "dtype": "types", "weak_type": "types", "static": "tree",
            "traced": "tree", "structure": "tree", "config": "config",
            "fresh_jit": "never seen function", "fresh_body": "never seen function",
            "traced_for": "debug"}
# said beside a cause, never instead of one: a closed-over value that differs, an argument
# committed to the device on one side only (JAX's compile cache, not its tracing cache, keys it)
NOTES = {"constant", "committed"}

# scenarios where JAX also logs the traces jax.checkpoint makes of its function and of what it
# derives (its JVP, its transpose: wrappers made anew per stage, "never seen function", none a
# compile). jxkernel's jax_explain_cache_misses log says each of them as JAX's does; its
# compile events (the notebook's notes) are the jit's misses only, those JAX logs at the
# user's call of the jit (docs/seeing_inside.md, "What a checkpointed function logs")
CHECKPOINT_TRACES = {"checkpoint_policy_jit_made_anew", "checkpoint_inside_jit_new_shape",
                     "checkpoint_policy_jit_made_once_fixed"}
# where make_jaxpr traces a jitted function: JAX logs make_jaxpr's own trace of it (at the
# call; logged by jxkernel without an event) and the jit's trace inside that one, at no call
# site ("TRACING CACHE MISS at :", jxkernel's event)
MAKE_JAXPR_TRACES = {"make_jaxpr_of_jit", "make_jaxpr_of_jit_twice",
                     "make_jaxpr_plain_new_shape", "eval_shape_of_partial_of_jit"}
# where make_jaxpr or eval_shape traces a plain function that a jit of it also meets (one
# trace cache in JAX, whose make_jaxpr and eval_shape are jit(g).trace): the scenario's line
# of those calls, whose misses jxkernel logs without an event; the jit's are events
MAKE_JAXPR_LINES = {"make_jaxpr_then_jit_new_shape": 3, "jit_then_make_jaxpr_new_shape": 4,
                    "eval_shape_then_jit_of_other_shape": 3}
# where a new function object of the same code is named (fresh_jit, or fresh_body for a
# control-flow body): None, on every miss but the first; else per line a function was defined
# on, after how many misses of it (two lambdas on one line are two codes, each new once);
# everywhere else it must not be
FRESH = {"jit_in_a_loop_lambda": None, "cell_rerun": None, "closure_factory_in_a_loop": None,
         "partial_in_a_loop": None, "jit_bound_method_in_a_loop": None,
         "scan_new_lambda_each_call": {2: 1},
         "cond_lambdas_in_a_loop": {2: 2},
         "while_loop_closures_new_carry_shape": {2: 1, 4: 1},
         "while_loop_closures_made_anew": {2: 1, 4: 1},
         "jitted_step_defined_inside_train": None, "jit_of_vmap_made_anew": None,
         "checkpoint_policy_jit_made_anew": None, "jit_of_grad_made_anew": None,
         "wrapper_decorator_each_call": None, "lambda_default_in_a_loop": None,
         "callable_object_jitted_anew": None, "trainer_made_each_epoch": None,
         "learner4_cell_run_twice": None, "learner4_bound_method_jitted_each_step": None,
         "learner4_partial_jitted_each_step": None, "learner5_lambda_in_a_loop_reads_i": None,
         "learner5_partial_binds_nothing_in_a_loop": None,
         # the loop's second call only: the third is on a line of its own, where JAX gives
         # no "re-defined" hint (a tuple: the misses that name it)
         "partial_in_a_loop_then_once": {2: (1,)}}


_ID = re.compile(r" id=\d+(?= defined at |\n|$)")


def jx_events(name, logged=None, misses=True, lines=False, fresh=False):
    """Run scenario `name` under jxkernel: (its result, the compile events of its functions
    that missed JAX's tracing cache, or with `misses=False` all of them); with `logged` (a
    list), jax_explain_cache_misses is on and the misses' messages about the scenario's
    functions go there; with `lines`, its source is in linecache (as a notebook cell's is),
    for the fixes written on the learner's own line.

    Without `lines` or `fresh`, the run is made once per test process for each name, logged
    or not (_run_once): the tests made 916 runs of 327 scenarios (now 668), each tracing and
    explaining again; the runs do not see each other (each its own file), so a second run of
    a scenario the same way is the first's again. `fresh`: a run of its own, for a test that
    reads what the run leaves in the process (outside_values.stale_reads)."""
    result, mine, messages, _ = _run(name, logged is not None, lines) if lines or fresh \
        else _run_once(name, logged is not None)
    if logged is not None:
        logged += messages
    # the misses of JAX's tracing cache: not a compile that reused a trace made under grad/vmap
    return result, [e for e in mine if e.miss or not misses]


def _run(name, log, lines):
    """Scenario `name` run (jx_events): (its result, all the compile events of its functions,
    the jax_explain_cache_misses messages about them where `log`, every compile event the run
    made)."""
    start = compile_log.last_seq() + 1
    before = config.jax_explain_cache_misses
    if log:
        config.update("jax_explain_cache_misses", True)
    tag = str(next(_RUNS))           # each run its own file: runs do not see each other
    file = f"{FILE_PREFIX}{name} {tag}>"
    if lines:
        source = SCENARIOS[name][1]
        linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    try:
        with logged_messages() as messages:
            result = run(jxkernel, name, tag)
    finally:
        config.update("jax_explain_cache_misses", before)
    said = []
    if log:
        said = [m for m in messages if f"defined at {file}" in m or
                m.startswith(f"TRACING CACHE MISS at {file}") and " defined at " not in m]
        # a function never seen is named with its id, as JAX's; the recording drops JAX's ids
        # (they change from run to run: tests/views/test_trace_time_misses.py compares them)
        assert all(_ID.search(m) for m in said if "never seen function:" in m), said
        said = [_ID.sub("", m) for m in said]
    every = tuple(compile_log.events_since(start))
    return result, tuple(e for e in every if _scenarios(e, file)), tuple(said), every


@functools.cache
def _run_once(name, log):
    return _run(name, log, lines=False)


def _scenarios(event, file) -> bool:
    """Whether `event` is of a function of the scenario in `file`: defined there, or a jitted
    callable object it called (no file of its own: JAX's "<unknown>", logged at the call)."""
    if event.source is not None:
        return event.source.startswith(file)
    return event.origin == "user" and event.call_site is not None and \
        event.call_site.file == file


_RUNS = itertools.count(1)


# JAX's order of kinds of difference (partial_eval.diff_tracing_cache_keys): it names the
# first kind that differs and nothing after it; jxkernel names each, the first one JAX's
SEVERITY = {"never seen function": -1, "config": 0, "tree": 1, "debug": 2, "types": 3}
# scenarios where the key named differs from the new one in more than JAX's first kind, and
# what jxkernel names beside it (JAX's message stops at its first kind: it does not say the
# rest is equal, so naming the shape that also changed contradicts nothing it says)
ALSO_NAMED = {"structure_before_types": {"tree", "types"},   # the first miss: a key and a shape
              "static_before_shape": {"tree", "types"},       # both misses: n and x's shape
              "config_before_types": {"config", "types"}}     # the first: x64 and the shape


def jax_causes(event) -> set:
    """The kinds of JAX miss jxkernel's explanation of `event` names."""
    return {JAX_KIND[c.kind] for c in event.changes if c.kind not in NOTES}


def jax_cause(event):
    """The kind of JAX miss jxkernel's explanation of `event` amounts to: the first of its
    kinds in JAX's order."""
    causes = jax_causes(event)
    if not causes:
        assert event.reason in ("first call", "ahead of time: .lower(...).compile()"), \
            f"an event with no change is not a first call: {event.reason!r}"
        return "never seen function"
    return min(causes, key=SEVERITY.__getitem__)


_STATIC_VAL = re.compile(r"Static\(val=(.*)\)$")


def _type_text(text: str) -> str:
    """A type as both write it, without the weak-type mark and JAX's sharding (written where
    the shardings differ, a rank's change): JAX's "f32[]{weak_type=True}" and "f32[]({})",
    jxkernel's "f32[] (weak)" -> "f32[]"."""
    return re.sub(r"\{weak_type=\w+\}| \(weak\)|\(\{[^)]*\}\)", "", text)


def _jax_config_path(path: str) -> str:
    """The config JAX names for one of ours: JAX calls every jax.make_user_context context
    "user_context" (ours: the name the user holds it by, "ctx (user context)"), and a context
    made since "number of tracing context values" (ours: "user contexts", how many)."""
    if path.endswith(" (user context)"):
        return "user_context"
    return "number of tracing context values" if path == "user contexts" else path


def check_like_jax(event, miss):
    cause = jax_cause(event)
    assert cause == miss["kind"], (event.reason, event.changes, miss)
    if event.reason == "first call":           # (b): nothing but "a new object" beside it
        assert {c.kind for c in event.changes} <= {"fresh_jit", "fresh_body"} | NOTES, \
            event.changes
    if cause == "types":          # the same leaves, kinds, and old and new types
        jx = sorted((c.path, c.kind, _type_text(c.old), _type_text(c.new))
                    for c in event.changes if JAX_KIND.get(c.kind) == "types")
        assert jx == sorted((c["path"], c["kind"], _type_text(c["before"]),
                             _type_text(c["after"])) for c in miss["changes"]), \
            (event.changes, miss["changes"])
    elif cause == "config":
        assert sorted(_jax_config_path(c.path) for c in event.changes if c.kind == "config") \
            == sorted(c["path"] for c in miss["changes"])
    elif cause == "tree":
        for c in event.changes:
            if c.kind != "static":
                continue
            found = [_STATIC_VAL.search(m["after"]) for m in miss["changes"]]
            values = [m.group(1) for m in found if m]
            if "(not passed: its default)" in (c.old, c.new):
                # JAX: the keywords' dict grew by it, or holds it on one side only (a passed,
                # then b: "with pytree metadata ('b',) and before ... ('a',)")
                key = f"'{c.path}'"
                assert any(m.get("why", "").endswith(f"key sets: {{{key}}}") or
                           (key in m["before"]) != (key in m["after"])
                           for m in miss["changes"]), (c, miss["changes"])
            elif not any(v.startswith("<") for v in values) or \
                    _jax_repr(c.new).startswith("<class 'jax."):   # else JAX's: an address
                assert _jax_repr(c.new) in values, (c, miss["changes"])
                # the key JAX names: its old value too (of equally near keys, JAX names the
                # first by its message's text, not the latest)
                olds = [m.group(1) for m in (_STATIC_VAL.search(x["before"])
                                             for x in miss["changes"]) if m]
                assert _jax_repr(c.old) in olds, (c, miss["changes"])


def _jax_repr(text: str) -> str:
    """A static value's repr as JAX's reads: a class of jxkernel's (jnp.float32) is JAX's,
    "<class 'jxkernel.numpy.float32'>" is "<class 'jax.numpy.float32'>" there."""
    return text.replace("<class 'jxkernel.", "<class 'jax.")


# the scenarios only XLA runs as recorded: export_symbolic's needs jax.export (StableHLO),
# which the NumPy backend refuses; default_device_cpu asks for jax.devices('cpu'); JAX's miss
# in set_mesh_around_a_call prints the mesh's platform=cpu (test_scenario_like_jax only)
XLA_ONLY = {"export_symbolic": "XLA text", "export_symbolic_then_growing": "XLA text",
            "default_device_cpu": "CPU platform"}
XLA_ONLY_TEXT = {**XLA_ONLY, "set_mesh_around_a_call": "CPU platform"}


def _cases(names, xla_only=XLA_ONLY) -> list:
    """The scenarios as params, those of `xla_only` marked with their reason."""
    return cases_marked(names, xla_only)


# a call whose trace raises, after one that compiled, then the same call again
RAISED_AGAIN = {"traced_if_on_a_new_shape_raises_twice"}


def _logged_kind(message: str) -> str:
    """The kind of difference a jax_explain_cache_misses message names first, as the
    recording's `kind` ("never seen function", "types", ...)."""
    if "never seen function:" in message:
        return "never seen function"
    return next(kind for kind, words in (("types", "different input types"),
                                         ("tree", "different input pytree"),
                                         ("config", "Tracing context doesn't match"))
                if words in message)


@pytest.mark.parametrize("name", _cases(SCENARIOS, XLA_ONLY_TEXT))
def test_scenario_like_jax(name):
    expected = REFERENCE[name]
    logged = []
    result, events = jx_events(name, logged)
    if name in RAISES:
        assert type(result).__name__ == expected["error"]
        # nothing compiled on either side: JAX logs the trace it began before the error in it
        # (traced_bool_flag_in_if, ones_traced_n), or nothing where the call is refused first;
        # jxkernel's events then are a loop body's trace, logged when it ended (before the
        # loop refused its carry: fori_loop_int_start_cast_back), as JAX logs it
        if name in RAISED_AGAIN:      # the first call compiled: its event alone
            assert expected["lowerings"] == 1 and [e.compiled for e in events] == [True]
        else:
            assert expected["lowerings"] == 0 and not any(e.compiled for e in events)
            assert [e.inlined_into is not None for e in events] == \
                [True] * len(expected["misses"]) if events else True
            # (a loop body traced again with its weak start promoted, then refused:
            # fori_loop_float_start_int_body)
            assert [m["kind"] for m in expected["misses"]] in (
                [], ["never seen function"], ["never seen function", "types"])
        # the log: each miss JAX logged before the error (its trace began, then raised), at
        # its line, in its kind; none for a call refused before tracing, nor for the same
        # failing call again (JAX's key joined what it explains against: RAISED_AGAIN)
        logged_kinds = {k: [_logged_kind(m) for m in v]
                        for k, v in _by_line(logged, _message_line).items()}
        assert logged_kinds == {k: [m["kind"] for m in v]
                                for k, v in _by_line(expected["misses"], _miss_line).items()}, \
            logged
        return
    misses = _jit_misses(name)
    assert len(events) == len(misses), [(e.reason, e.changes) for e in events]
    # function by function (by the line it was defined on): JAX records an outer jit's miss
    # before those of the jits its trace meets, jxkernel's event after them (with the
    # compile; its log line is in JAX's order: compile_record.misses_held)
    ours, theirs = _by_line(events, _event_line), _by_line(misses, _miss_line)
    assert {k: len(v) for k, v in ours.items()} == {k: len(v) for k, v in theirs.items()}
    for line, mine in ours.items():
        for event, miss in zip(mine, theirs[line]):
            check_like_jax(event, miss)
    more = {frozenset(jax_causes(e)) for e in events if len(jax_causes(e)) > 1}
    assert more == ({frozenset(ALSO_NAMED[name])} if name in ALSO_NAMED else set()), \
        [(e.reason, e.changes) for e in events]
    for line, mine in ours.items():
        spec = FRESH.get(name, {}) if name in FRESH else {}
        first = 1 if spec is None else spec.get(line)
        for i, event in enumerate(mine):
            fresh = any(c.kind in ("fresh_jit", "fresh_body") for c in event.changes)
            named = i in first if isinstance(first, tuple) else \
                first is not None and i >= first
            assert fresh == named, (name, line, i, event.changes)
    # the jax_explain_cache_misses log: "never seen function" where JAX says it, and each
    # message's first lines as JAX's: the call site (file, line, function: the user's, never
    # jxkernel's), "never seen function:" and the function with where it was defined, or
    # "for <function> defined at ...", and the kind of difference in JAX's words
    # (in JAX's order, a checkpointed function's traces too: the jit's miss, explained at
    # its compile, is logged before the misses its trace met, which wait for it)
    order = list
    logged_by_line = _by_line(logged, _message_line)
    every = _by_line(expected["misses"], _miss_line)
    assert {k: order("never seen function:" in m for m in v)
            for k, v in logged_by_line.items()} \
        == {k: order(m["kind"] == "never seen function" for m in v) for k, v in every.items()}, \
        logged
    jax_by_line = _by_line(expected["messages"], _message_line)
    for line, mine in logged_by_line.items():
        ours_heads = order(_head(m, name) for m in mine)
        theirs_heads = order(_head(m, name) for m in jax_by_line[line])
        for ours_text, theirs_text in zip(ours_heads, theirs_heads):
            assert ours_text == theirs_text, (mine, jax_by_line[line])
        # and each difference JAX words as a line of its own, in JAX's words: an input's
        # type ("* at y, now i32[] and before f32[]") or a tracing-context option
        for ours_text, theirs_text in zip(order(_bullets(m) for m in mine),
                                          order(_bullets(m) for m in jax_by_line[line])):
            assert set(theirs_text) <= set(ours_text), (mine, jax_by_line[line])
        # a different input pytree: JAX's own lines (tree_util's words, per input path), its
        # static arguments Static nodes in the tree (a class of jxkernel's, jnp.float32, as
        # JAX's: _jax_repr)
        for ours_text, theirs_text in zip(order(_tree_bullets(_jax_repr(m)) for m in mine),
                                          order(_tree_bullets(m) for m in jax_by_line[line])):
            assert ours_text == theirs_text, (mine, jax_by_line[line])
        # JAX's link on weak types, glued to a type's line, where JAX's message has it
        assert order(_weak_link(m) for m in mine) == \
            order(_weak_link(m) for m in jax_by_line[line]), (mine, jax_by_line[line])
        # JAX's "re-defined repeatedly?" hint (keyed on the call site) where JAX gives it only
        # (not at no call site, "": every scenario's in one process share it)
        if name not in CHECKPOINT_TRACES and name not in OTHER_TRACE_ORDER:
            assert order(_REDEFINED in m for m in mine if not m.startswith(NO_SITE)) == \
                order(m["redefined_hint"] for m, text in zip(every[line], jax_by_line[line])
                      if not text.startswith(NO_SITE)), (mine, every[line])
    if name in OTHER_TRACE_ORDER:           # as many, on the other function
        assert sum(_REDEFINED in m for m in logged) == \
            sum(m["redefined_hint"] for m in expected["misses"]), logged


_REDEFINED = "being re-defined repeatedly, preventing caching?"
# where jxkernel's lax traces a call's functions in another order than JAX's (a while_loop's
# body before its cond, a cond's false branch first): JAX's hint, given to the second function
# traced at a call site, falls on the other one. (A checkpoint's traces are logged at no call
# site, "", which every scenario's share in one process: not compared.)
OTHER_TRACE_ORDER = {"while_loop_carry_dtype", "cond_branch_closure_rebound",
                     "cond_operand_float_then_int", "cond_operand_float_then_int_fixed"}


def _jit_misses(name) -> list:
    """JAX's misses of scenario `name` that are jxkernel's compile events: all, but for a
    checkpointed function's only those JAX logs at the user's call of the jit (not the traces
    checkpoint makes inside it, which jxkernel logs without an event)."""
    expected = REFERENCE[name]
    if name in MAKE_JAXPR_TRACES:
        return [m for m, text in zip(expected["misses"], expected["messages"])
                if text.startswith(NO_SITE)]
    if name in MAKE_JAXPR_LINES:
        return [m for m, text in zip(expected["misses"], expected["messages"])
                if not re.search(f"{name}>:{MAKE_JAXPR_LINES[name]}[: ]", text.splitlines()[0])]
    if name not in CHECKPOINT_TRACES:
        return expected["misses"]
    return [m for m, text in zip(expected["misses"], expected["messages"])
            if text.splitlines()[0].endswith("(<module>):")]


NO_SITE = "TRACING CACHE MISS at :"


@pytest.mark.parametrize("name", sorted(CHECKPOINT_TRACES))
def test_checkpoints_own_traces_are_logged_not_noted(name):
    """JAX's log for a checkpointed function, message for message (the heads); the compile
    events are the jit's alone, and each is a compile."""
    logged = []
    _, events = jx_events(name, logged)
    expected = REFERENCE[name]
    assert len(logged) == len(expected["messages"]) > len(events) >= 1
    assert sorted(_head(m, name) for m in logged) == \
        sorted(_head(m, name) for m in expected["messages"]), logged
    assert all(e.compiled for e in events)


_TAGGED = re.compile(r"<recompile:(\S+) \d+>")


def _head(message: str, name: str) -> list:
    """A logged miss's lines that JAX's and jxkernel's share: the call site, the function and
    where it was defined, and the kind of difference (jxkernel's file tag dropped)."""
    lines = [_TAGGED.sub(r"<recompile:\1>", line) for line in message.splitlines()]
    head = lines[:3] if lines[1] == "  never seen function:" else lines[:2]
    kinds = [line for line in lines[3:4] if line.startswith("  ") and
             line.strip() in ("different input types:", "different input pytree:",
                              "Debug info doesn't match.") or
             line.strip().startswith("Tracing context doesn't match")]
    return head + kinds


_BULLET = re.compile(r"^  \* (at [^,]+, now .* and before \S+?|\S+ differs: now .* and before .*?)"
                     r"(https://\S+)?$")


def _bullets(message: str) -> list:
    """A logged miss's lines naming one input's type or one option, as JAX words them (its
    weak-type link, glued to the line in JAX's message, left out). Where an input's rank
    changes, JAX also prints each side's sharding, its mesh's axis types ("f32[]({})": the
    default mesh has none), and so does jxkernel."""
    return [m.group(1) for m in map(_BULLET.match, message.splitlines()) if m]


def _weak_link(message: str) -> bool:
    """Whether a logged miss ends a type's line with JAX's link on weak types."""
    return any(line.startswith("  * at ") and
               line.endswith("https://docs.jax.dev/en/latest/type_promotion.html#weak-types")
               for line in message.splitlines())


def _tree_bullets(message: str) -> list:
    """A logged miss's lines naming one difference of the input pytree, as JAX words them
    ("* at input path [0][0], now <class 'tuple'> and before <class 'list'>, so ...")."""
    return [re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", line)   # an address: as recorded
            for line in message.splitlines() if line.startswith("  * at input path ")]


def _by_line(items, line_of) -> dict:
    found = collections.defaultdict(list)
    for item in items:
        found[line_of(item)].append(item)
    return dict(found)


# (a jitted callable object, "<unknown>" to JAX, is defined nowhere: its line is None)
def _event_line(event) -> int | None:
    return int(event.source.rsplit(":", 1)[1]) if event.source is not None else None


def _miss_line(miss) -> int | None:
    return miss["line"]


def _message_line(message) -> int | None:
    found = re.search(r"defined at <recompile:[^>]*>:(\d+)", message)
    return int(found.group(1)) if found else None


# where jxkernel compiles another number of programs than JAX lowers, and why
# (none now: a committed Array and an uncommitted one compile apart, as in JAX; the compile
# level's own corpus is tests/views/test_compile_level_corpus.py)
KNOWN_PROGRAMS = {}


@functools.cache
def compiled_events(name) -> tuple:
    """(the compiles of scenario `name`'s functions, not a retrace inlined into another
    program; the programs of vmap/grad of them, logged without a source), of one run per test
    process: test_the_bucketing_fix_promises_what_jax_compiles counts the same run's."""
    _, mine, _, every = _run_once(name, False)       # (jx_events(name, misses=False)'s)
    mine = [e for e in mine if e.compiled]      # not a retrace inlined into another program
    names = {e.function for e in mine} | {m["function"] for m in REFERENCE[name]["misses"]}
    counted = {e.seq for e in mine}         # (a callable object's own have no source either)
    transformed = [e for e in every
                   if e.source is None and e.function in names and e.seq not in counted]
    return tuple(mine), tuple(transformed)


@pytest.mark.parametrize("name", _cases(n for n in SCENARIOS if n not in RAISES))
def test_programs_compiled_like_jax(name):
    """Programs compiled for the scenario's functions (its jit misses, and the programs of
    vmap/grad of them, logged without a source) against the programs JAX lowered."""
    mine, transformed = compiled_events(name)
    count = len(mine) + len(transformed)
    if name in KNOWN_PROGRAMS:
        assert count != REFERENCE[name]["lowerings"], \
            f"{name} matches JAX now: take it out of KNOWN_PROGRAMS"
        pytest.xfail(KNOWN_PROGRAMS[name])
    assert count == REFERENCE[name]["lowerings"]


def test_the_corpus_is_large_enough_and_recorded():
    assert len(SCENARIOS) >= 30 and set(REFERENCE) == set(SCENARIOS)


# ================================================================== the fixes apply
def test_a_fix_never_makes_an_array_static():
    _, events = jx_events("same_function_two_statics")       # n: a Python float, then static
    (change,) = events[-1].changes
    assert change.kind == "traced" and "static_argnames=('n',)" in change.snippet

    def weigh(x, w):
        return x * w
    jxkernel.jit(weigh, static_argnums=1)(jnp.ones(3), 2)      # w static 2
    g = jxkernel.jit(weigh)
    g(jnp.ones(3), jnp.ones(3))                                 # w traced, an array
    (change,) = [e for e in compile_log.compile_events() if e.key is g][-1].changes
    assert (change.kind, change.old, change.new) == ("traced", "static 2", "f32[3]")
    assert "static_argnums=" not in change.snippet and "static_argnames=" not in change.snippet
    assert "cannot be static" in change.fix


def test_a_fix_names_one_function_the_one_jax_names():
    """Two jits of power (n traced, then static): the fix jitted power and its comment said
    "the one jit of f" (JAX 0.10.2: the miss is "for power defined at ..."); seen running
    jit-compilation.md's `jax.jit(f, static_argnames=...)` cells with another name."""
    _, events = jx_events("same_function_two_statics")
    (change,) = events[-1].changes
    function = REFERENCE["same_function_two_statics"]["misses"][-1]["function"]
    assert change.snippet.startswith(f"jax.jit({function}, static_argnames=('n',))")
    assert f"# the one jit of {function}:" in change.snippet, change.snippet


def test_a_closure_made_anew_suggests_passing_what_it_reads():
    _, events = jx_events("closure_factory_in_a_loop")
    (change,) = events[-1].changes
    assert change.kind == "fresh_jit" and "closure over k" in change.fix
    assert "def f(x, k):" in change.snippet
    _, events = jx_events("jit_in_a_loop_lambda")
    assert "Make the jitted function once and reuse it" in events[-1].changes[0].fix


def test_a_partial_that_binds_nothing_is_not_said_to_bind():
    """jax.jit(partial(body)) made anew (the JIT tutorial's loop): jit body once and call it;
    the fix named a `k` that the partial never bound ("# k passed, not bound")."""
    _, events = jx_events("learner5_partial_binds_nothing_in_a_loop")
    (change,) = events[-1].changes
    assert change.snippet.splitlines()[-1] == "out = f_jit(prev_i)"
    assert change.fix.endswith("Jit body once and call that one (this partial binds nothing).")


def test_a_static_object_that_hashes_by_identity_says_so():
    _, events = jx_events("static_self")
    (change,) = events[-1].changes
    assert change.kind == "static"
    assert "identity" in change.fix and "drop it from static_argnums" not in change.fix


def test_structure_fixes_fit_the_container():
    fixes = {}
    for name in ("dict_key_added", "list_length", "tuple_vs_list", "keyword_vs_positional",
                 "default_argument_passed", "none_leaf"):
        _, events = jx_events(name)
        (change,) = events[-1].changes
        assert change.kind == "structure"
        fixes[name] = change
    assert "{**defaults" in fixes["dict_key_added"].snippet
    for name in ("list_length", "tuple_vs_list", "keyword_vs_positional",
                 "default_argument_passed"):
        assert "{**defaults" not in fixes[name].snippet, (name, fixes[name])
    assert "keyword" in fixes["keyword_vs_positional"].fix
    assert "y" in fixes["default_argument_passed"].fix


def test_fixes_for_python_numbers_strings_partials_and_fields():
    def change_of(name):
        _, events = jx_events(name)
        (change,) = events[-1].changes
        return change
    change = change_of("python_int_then_float")          # 1, then 1.0: the wider kind
    assert change.kind == "dtype" and change.snippet.startswith("x = float(x)")  # int(2.5)=2
    change = change_of("static_string")                  # a string cannot be traced
    assert change.kind == "static" and "drop it from static_argnums" not in change.fix
    assert "lax.switch" in change.snippet
    change = change_of("static_value")                   # a number can
    assert "drop it from static_argnums" in change.fix
    change = change_of("partial_in_a_loop")
    assert change.kind == "fresh_jit" and "f_jit = jax.jit(g)" in change.snippet
    # one function, other jit options: g traced once (as JAX: donation is not in the tracing
    # cache's key), compiled twice, the second compile naming the option
    _, events = jx_events("donation_added", misses=False)
    assert [e.miss for e in events] == [True, False]
    (change,) = events[-1].changes
    assert (change.path, change.kind, change.old, change.new) == \
        ("donate_argnums", "config", "()", "(0,)")
    assert "donate_argnums=(0,)" in change.snippet
    change = change_of("namedtuple_field")               # p.y = ... would raise
    assert change.snippet.startswith("p = p._replace(y=jnp.asarray(p.y, jnp.float32))")


# each scenario's fix as a learner would apply it (the snippet the explanation shows, in
# place): one compile then, here and under JAX 0.10.2 (run by hand when this was written)
APPLIED = {
    "int_float_alternating": (
        "dtype", "x = float(x)",
        "f = jax.jit(lambda x: x * 2)\n"
        "for v in (1, 1.0, 2, 2.5):\n"
        "    x = float(v)\n"
        "    f(x)\n"),
    "last_partial_batch": (
        "shape", "jnp.pad(batch, [(0, 32 - n)]",
        "data = jnp.ones((100, 3))\n"
        "step = jax.jit(lambda batch, mask: ((batch ** 2).mean(axis=1) * mask).sum()\n"
        "               / mask.sum())\n"
        "for i in range(0, 100, 32):\n"
        "    batch = data[i:i + 32]\n"
        "    n = batch.shape[0]\n"
        "    batch = jnp.pad(batch, [(0, 32 - n)] + [(0, 0)] * (batch.ndim - 1))\n"
        "    mask = jnp.arange(32) < n\n"
        "    step(batch, mask)\n"),
    "accumulator_starts_as_python_float": (
        "weak_type", "total = jnp.asarray(total, jnp.float32)",
        "step = jax.jit(lambda total, b: total + b.sum())\n"
        "total = 0.0\n"
        "total = jnp.asarray(total, jnp.float32)\n"
        "for i in range(3):\n"
        "    total = step(total, jnp.ones(3))\n"),
    "static_learning_rate_decays": (
        "static", "jax.jit(update)",
        "def update(w, lr):\n"
        "    return w - lr * w\n"
        "f = jax.jit(update)\n"
        "w = jnp.ones(3)\n"
        "for step in range(3):\n"
        "    w = f(w, 0.1 * 0.5 ** step)\n"),
    "python_list_vs_array": (
        "structure", "x = jnp.asarray(x)",
        "f = jax.jit(lambda x: jnp.asarray(x).sum())\n"
        "f(jnp.array([1.0, 2.0]))\n"
        "x = [1.0, 2.0]\n"
        "x = jnp.asarray(x)\n"
        "f(x)\n"),
    "static_argnames_given_positionally": (
        "structure", "f(..., n=n)",      # (calls on one line: the pattern, said so)
        "def scale(x, n):\n"
        "    return x * n\n"
        "f = jax.jit(scale, static_argnames='n')\n"
        "f(jnp.ones(3), n=2); f(jnp.ones(3), n=2); f(jnp.ones(3), n=2)\n"),
    "static_bool_flag_alternating": (
        "static", "jax.lax.cond(training,",
        "def g(x, training):\n"
        "    return jax.lax.cond(training, lambda x: x * 0.5, lambda x: x, x)\n"
        "f = jax.jit(g)\n"
        "for t in (True, False, True, False):\n"
        "    f(jnp.ones(3), training=t)\n"),
    "frozen_dataclass_static": (
        "static", "register_dataclass(Config, data_fields=['scale'], meta_fields=[])",
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Config:\n"
        "    scale: float\n"
        "jax.tree_util.register_dataclass(Config, data_fields=['scale'], meta_fields=[])\n"
        "f = jax.jit(lambda x, cfg: x * cfg.scale)\n"
        "f(jnp.ones(3), Config(2.0)); f(jnp.ones(3), Config(2.0)); "
        "f(jnp.ones(3), Config(3.0))\n"),
    "jit_bound_method_in_a_loop": (
        "fresh_jit", "apply_jit = jax.jit(obj.apply)",
        "class Model:\n"
        "    def apply(self, x):\n"
        "        return x * 2\n"
        "m = Model()\n"
        "apply_jit = jax.jit(m.apply)\n"
        "for i in range(3):\n"
        "    apply_jit(jnp.ones(3))\n"),
    "default_matmul_precision": (
        "config", 'jax.config.update("jax_default_matmul_precision", "float32")',
        "jax.config.update('jax_default_matmul_precision', 'float32')\n"
        "try:\n"
        "    f = jax.jit(lambda a, b: a @ b)\n"
        "    a = jnp.ones((2, 2))\n"
        "    f(a, a); f(a, a)\n"
        "finally:\n"
        "    jax.config.update('jax_default_matmul_precision', None)\n"),
    "default_device_cpu": (
        "config", 'jax.config.update("jax_default_device", jax.devices("cpu")[0])',
        "jax.config.update('jax_default_device', jax.devices('cpu')[0])\n"
        "try:\n"
        "    f = jax.jit(lambda x: x * 2)\n"
        "    f(jnp.ones(3))\n"
        "    with jax.default_device(jax.devices('cpu')[0]):\n"
        "        f(jnp.ones(3))\n"
        "finally:\n"
        "    jax.config.update('jax_default_device', None)\n"),
    "grad_of_jit_inside_jit_new_shape": (      # the loss, traced inside the step, once too
        "shape", "x = jnp.pad(x, [(0, size - n)]",
        "def loss(x):\n"
        "    return (x * x).sum()\n"
        "loss_jit = jax.jit(loss)\n"
        "def step(x):\n"
        "    return x - 0.1 * jax.grad(loss_jit)(x)\n"
        "step_jit = jax.jit(step)\n"
        "for x in (jnp.ones(3), jnp.ones(3), jnp.ones(4)):\n"
        "    n = x.shape[0]\n"
        "    size = 1 << (n - 1).bit_length()        # the next power of two\n"
        "    x = jnp.pad(x, [(0, size - n)] + [(0, 0)] * (x.ndim - 1))\n"
        "    step_jit(x)\n"),
    "user_context_changed": (
        "config", "ctx.set_global(1)",
        "ctx = jax.make_user_context(0)\n"
        "ctx.set_global(1)    # once, at start-up: every call under one value\n"
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "with ctx(1):\n"
        "    f(jnp.ones(3))\n"
        "with ctx(1):\n"
        "    f(jnp.ones(3))\n"
        "f(jnp.ones(3))\n"),
    "user_context_made_after_a_call": (
        "config", "mode = jax.make_user_context('train')",
        "mode = jax.make_user_context('train')    # at start-up, before any jitted call\n"
        "f = jax.jit(lambda x: x * 2)\n"
        "f(jnp.ones(3))\n"
        "f(jnp.ones(3)); f(jnp.ones(3))\n"),
    # stop 60's programs (each applied under JAX 0.10.2 too: one "never seen function" miss)
    "static_none_then_value": (
        "static", "f(..., clip=jnp.inf)",
        "def g(x, clip=None):\n"
        "    return x if clip is None else jnp.minimum(x, clip)\n"
        "f = jax.jit(g)\n"
        "f(jnp.ones(3), clip=jnp.inf); f(jnp.ones(3), clip=0.5)\n"),
    "none_then_array_argument": (
        "structure", "bias = jnp.zeros((3,)) if bias is None else bias",
        "def g(x, bias):\n"
        "    return x if bias is None else x + bias\n"
        "f = jax.jit(g)\n"
        "for bias in (None, jnp.ones(3)):\n"
        "    bias = jnp.zeros((3,)) if bias is None else bias\n"
        "    f(jnp.ones(3), bias)\n"),
    "static_default_then_passed": (
        "static", "f(..., n=2)",
        "def g(x, n=2):\n"
        "    return x * n\n"
        "f = jax.jit(g, static_argnames='n')\n"
        "f(jnp.ones(3), n=2); f(jnp.ones(3), n=2)\n"),
    "static_self_hashed_by_fields": (
        "static", "lambda m: ((m.k,), None), lambda _, leaves: Model(*leaves))",
        "class Model:\n"
        "    def __init__(self, k):\n"
        "        self.k = k\n"
        "    def __hash__(self):\n"
        "        return hash(self.k)\n"
        "    def __eq__(self, other):\n"
        "        return isinstance(other, Model) and self.k == other.k\n"
        "    def apply(self, x):\n"
        "        return x * self.k\n"
        "jax.tree_util.register_pytree_node(\n"
        "    Model, lambda m: ((m.k,), None), lambda _, leaves: Model(*leaves))\n"
        "f = jax.jit(Model.apply)\n"
        "f(Model(2), jnp.ones(3)); f(Model(2), jnp.ones(3)); f(Model(3), jnp.ones(3))\n"),
    "partial_of_jit_static_argnames": (
        "static", "out = jax.lax.switch(i, [branch_0, branch_1], x)",
        "MODES = ('tanh', 'relu')\n"
        "@jax.jit\n"
        "def act(x, i):\n"
        "    return jax.lax.switch(i, [jnp.tanh, lambda x: jnp.maximum(x, 0)], x)\n"
        "for mode in ('tanh', 'relu', 'tanh'):\n"
        "    i = MODES.index(mode)\n"
        "    act(jnp.ones(3), i)\n"),
    # a list one item longer each step: an array of full size, written at an index, a mask
    "int_list_length_changes": (
        "structure", "mask = jnp.arange(n_steps) <= i",
        "f = jax.jit(lambda xs, mask: (xs.sum(axis=1) * mask).sum())\n"
        "n_steps = 3\n"
        "xs = jnp.zeros((n_steps, 2), jnp.float32)    # once, before the loop\n"
        "for i in range(n_steps):\n"
        "    xs = xs.at[i].set(jnp.ones(2))    # step i: not an append (+ [value])\n"
        "    mask = jnp.arange(n_steps) <= i\n"
        "    f(xs, mask)\n"),
    # (zeros written out, not zeros_like(xs[0]): it fails for a list that starts empty)
    "list_length": (
        "structure", "xs = jnp.stack(list(xs) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))",
        "f = jax.jit(lambda xs: sum(xs))\n"
        "for xs in ([], [jnp.ones(2), jnp.ones(2)], [jnp.ones(2), jnp.ones(2), jnp.ones(2)]):\n"
        "    MAX = 8\n"
        "    n = len(xs)\n"
        "    xs = jnp.stack(list(xs) + [jnp.zeros((2,), jnp.float32)] * (MAX - n))\n"
        "    f(xs)\n"),
}


# the scenarios whose fix is written by how the function's source uses a value (None made
# an array: zeros where it is added, ones where multiplied by; structure.none_made_neutral),
# read back from linecache as a notebook cell's is: unread, the fix is a pattern
SOURCE_READ = {"none_then_array_argument", "none_leaf"}


@pytest.mark.parametrize("name", _cases(sorted(APPLIED)))
def test_the_fix_shown_applies(name):
    """The explanation's snippet is the fix; the scenario with it applied compiles once."""
    kind, snippet, fixed = APPLIED[name]
    _, events = jx_events(name, lines=name in SOURCE_READ)
    change = events[-1].changes[0]
    assert change.kind == kind and snippet in change.snippet, change
    start = compile_log.last_seq() + 1
    file = f"<fixed:{name}>"
    exec(compile(fixed, file, "exec"), {"jax": jxkernel, "jnp": jnp})
    mine = [e for e in compile_log.events_since(start) if (e.source or "").startswith(file)]
    # one compile; a jit traced inside it (inlined, nothing of its own compiled) traced once
    assert len([e for e in mine if e.compiled]) == 1 and \
        all(e.reason == "first call" for e in mine), [(e.reason, e.changes) for e in mine]


# A learner's program, the fix its explanation shows (kind, code in the snippet, or words in
# the fix where the code is the learner's own), and the program with that fix applied: a
# scenario of its own, recorded under JAX 0.10.2, which lowers it once; jxkernel compiles it
# once too (every other scenario test holds for it as well)
APPLIED_RECORDED = {
    "static_lambda_each_call": ("static", "# made once, outside the loop",
                                "static_lambda_made_once_fixed"),
    "static_partial_each_call": ("static", "jax.tree_util.Partial",
                                 "tree_util_partial_argument"),
    "namedtuple_then_tuple": ("structure", "p = Point(*p)", "namedtuple_then_tuple_fixed"),
    "none_then_empty_tuple": ("structure", "p['extra'] = None",
                              "none_then_empty_tuple_fixed"),
    "none_leaf": ("structure", "p['b'] = jnp.zeros((2,)) if p['b'] is None else p['b']",
                  "none_leaf_fixed"),
    "velocity_starts_as_python_float": (
        "shape", "v = jnp.broadcast_to(jnp.asarray(v, jnp.float32), (3,))",
        "velocity_starts_as_python_float_fixed"),
    "last_partial_batch_dict": ("shape", "jnp.pad(b['y'], [(0, 4 - n)]",
                                "last_partial_batch_dict_fixed"),
    "prng_key_raw_then_typed": ("shape", "k = jax.random.wrap_key_data(k)",
                                "prng_key_raw_then_typed_fixed"),
    "enable_x64_context": ("config", 'jax.config.update("jax_enable_x64", True)',
                           "enable_x64_context_fixed"),
    # (read at the learner's line: m is what update gave back, cast back to bfloat16; where
    # no line can be read, the plain fix casts to float32, which holds both dtypes' values)
    "optimizer_state_dtype_promotes": ("dtype", "jnp.asarray(m, jnp.bfloat16)",
                                       "optimizer_state_dtype_promotes_fixed"),
    "optimizer_count_becomes_float": ("dtype", "count = float(count)",
                                      "optimizer_count_becomes_float_fixed"),
    "checkpoint_policy_jit_made_anew": ("fresh_jit", "loss_jit = jax.jit(jax.grad(loss))",
                                        "checkpoint_policy_jit_made_once_fixed"),
    "static_numpy_int_then_python_int": ("static", "n = int(n)",
                                         "static_numpy_int_then_python_int_fixed"),
    "params_list_returned_as_tuple": ("structure", "params = list(params)",
                                      "params_list_returned_as_tuple_fixed"),
    "jitted_step_defined_inside_train": ("fresh_jit", "Make the jitted function once",
                                         "jitted_step_defined_once_fixed"),
    # a dtype given as jnp.float32, then as x.dtype: jnp.dtype makes both one key
    "static_dtype_scalar_type_then_dtype": ("static", "dtype = jnp.dtype(dtype)",
                                            "static_dtype_scalar_type_then_dtype_fixed"),
    # a static nan is never equal to itself: traced, one program
    "static_nan": ("static", "nan != nan", "static_nan_fixed"),
    # a lambda's default bound anew in a loop: one lambda, k passed
    "lambda_default_in_a_loop": ("fresh_jit", "out = f(x, k)    # k passed in each call",
                                 "lambda_default_in_a_loop_fixed"),
    # int32 data, then float32: cast to float32 (int32 would truncate the floats)
    "int_array_then_float_array": ("dtype", "x = jnp.asarray(x, jnp.float32)",
                                   "int_array_then_float_array_fixed"),
    "uint8_image_then_float": ("dtype", "img = jnp.asarray(img, jnp.float32)",
                               "uint8_image_then_float_fixed"),
    # an array grown by one each step: made at its full size, written at a traced index
    "history_concatenate_grows": ("shape", "hist = hist.at[i].set(value)",
                                  "history_concatenate_grows_fixed"),
    # an OrderedDict's order is its structure (a dict's keys are sorted)
    "ordereddict_order": ("structure", "p = dict(p)", "ordereddict_order_fixed"),
    # aux data of a class comparing by identity: made to compare by its fields
    "pytree_aux_data_compared_by_identity": (
        "structure", "@dataclasses.dataclass(frozen=True)",
        "pytree_aux_data_compared_by_identity_fixed"),
    # (the pad was of axis 0 whatever axis grew: f32[5,3] -> f32[5,4] stayed two programs)
    "second_axis_grows": ("shape", "x = jnp.pad(x, [(0, 0)] * 1 + [(0, size - n)]",
                          "second_axis_grows_fixed"),
    # a jitted function under vmap sees rows: the pad is on the array vmap is given
    "vmap_of_jit_rows_grow": ("shape", "xs = jnp.pad(xs, [(0, 0)] * 1 + [(0, size - n)]",
                              "vmap_of_jit_rows_grow_fixed"),
    # a learner's notebook: aux data that changes each step goes among the children
    "pytree_aux_float_decays": ("structure", "return it among the children",
                                "pytree_aux_float_decays_fixed"),
    # a list the step returns one item longer: an array of full size, written at an index
    # (the list stacked outside the step, the length fix, would not stop the step appending)
    "loss_history_list_in_state": (
        "structure", "state['losses'] = state['losses'].at[i].set(value)",
        "loss_history_list_in_state_fixed"),
    # the same rows in another layout: reshaped to the first call's before the call (it was
    # "a compile per rank is expected", with no fix)
    "images_flattened_then_not": ("shape", "x = x.reshape(x.shape[0], 784)",
                                  "images_flattened_then_not_fixed"),
    "batch_dict_label_dtype_int_then_float": (
        "dtype", "batch['y'] = jnp.asarray(batch['y'], jnp.float32)",
        "batch_dict_label_dtype_int_then_float_fixed"),
    # a Trainer jitting its method in __init__, made each epoch: make the Trainer once (it
    # was "jit obj._step once", of an object made anew)
    "trainer_made_each_epoch": ("fresh_jit", "obj = Trainer(...)    # once, outside the loop",
                                "trainer_made_each_epoch_fixed"),
    # a learner's fourth pass (tests/data/recompile_cases.py, "learner4_*")
    "learner4_last_batch_smaller": ("shape", "xb = jnp.pad(xb, [(0, 4 - n)]",
                                    "learner4_last_batch_smaller_fixed"),
    "learner4_arange_then_linspace": ("dtype", "x = jnp.asarray(x, jnp.float32)",
                                      "learner4_arange_then_linspace_fixed"),
    "learner4_learning_rate_weak": ("weak_type", "lr = jnp.asarray(lr, jnp.float32)",
                                    "learner4_learning_rate_weak_fixed"),
    "learner4_static_steps_in_a_loop": ("static", "drop it from static_argnums/static_argnames",
                                        "learner4_static_steps_in_a_loop_fixed"),
    "learner4_bound_method_jitted_each_step": ("fresh_jit", "apply_jit = jax.jit(obj.apply)",
                                               "learner4_bound_method_jitted_once_fixed"),
    # (it was `out = f_jit(k, x)`, names of no parameter of loss)
    "learner4_partial_jitted_each_step": ("fresh_jit", "out = f_jit(x, beta=beta)",
                                          "learner4_partial_jitted_once_fixed"),
    "learner4_params_dict_gains_a_key": ("structure", "params = {**defaults, **params}",
                                         "learner4_params_dict_gains_a_key_fixed"),
    # a lambda reading the loop's variable: made once it keeps i's first value (JAX answers
    # 0 for every i, learner5_lambda_made_once_reads_i); the fix passes i
    "learner5_lambda_in_a_loop_reads_i": ("fresh_jit", "passed as an argument",
                                          "learner5_lambda_made_once_reads_i_fixed"),
    # a partial that binds nothing: jit the function once and call that (its fix named a `k`
    # the partial never bound)
    "learner5_partial_binds_nothing_in_a_loop": (
        "fresh_jit", "f_jit = jax.jit(body)    # once\nout = f_jit(prev_i)",
        "learner5_partial_binds_nothing_in_a_loop_fixed"),
    # a keyword left out, then passed: passed in every call (by its name in a notebook cell:
    # test_notebook_compile_notes)
    "learner5_decorated_keyword_left_out_then_passed": (
        "structure", "Pass factor in every call",
        "learner5_decorated_keyword_left_out_then_passed_fixed"),
}


def test_the_bucketing_fix_promises_what_jax_compiles():
    """Bucketing reduces compiles to a few sizes, not one: the fix says how many ("at most 5
    compiles for lengths up to 64"), and its snippet applied to every length from 1 to 64 is
    what JAX lowers (5 programs: 4, 8, 16, 32, 64), and what jxkernel compiles."""
    _, events = jx_events("shape")
    (change,) = events[-1].changes
    promised = re.search(r"at most (\d+) compiles for lengths up to (\d+)", change.fix)
    assert promised and promised.groups() == ("5", "64"), change.fix
    snippet = change.snippet.splitlines()[1:]        # (n is the loop's there)
    source = SCENARIOS["lengths_bucketed_fixed"][1]
    assert all(line in source for line in snippet), (snippet, source)
    assert REFERENCE["lengths_bucketed_fixed"]["lowerings"] == 5
    mine, _ = compiled_events("lengths_bucketed_fixed")     # (test_programs_compiled_like_jax's)
    assert len(mine) == 5, [(e.reason, e.changes) for e in mine]


def test_a_row_under_vmap_is_told_as_a_row():
    """A jitted function under vmap whose rows changed shape: the fix is on the array vmap is
    given, and mapping another axis (in_axes) is told as a compile each, as JAX's two misses."""
    _, events = jx_events("vmap_of_jit_in_axes_changes")
    (change,) = events[-1].changes
    assert [m["kind"] for m in REFERENCE["vmap_of_jit_in_axes_changes"]["misses"]] == \
        ["never seen function", "types"]
    assert change.kind == "shape" and "a row of what vmap maps over" in change.fix
    assert "a compile for each is expected" in change.fix and "xs = jnp.pad(xs" in \
        change.snippet


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS if n.startswith("trace_context_")
                                         and len(REFERENCE[n]["misses"]) == 2))
def test_a_trace_options_fix_is_code_that_sets_the_value_it_compiled_under(name):
    """An option of JAX's trace context changed between two calls (JAX: "* jax_remat3
    differs: now True and before False"): the fix's code runs and sets the option to the
    value the second call compiled under (an enum by its name: it was
    `jax.config.update("jax_explicit_x64_dtypes", <ExplicitX64Mode.ALLOW: 3>)`)."""
    _, events = jx_events(name)
    (change,) = events[-1].changes
    assert change.kind == "config" and f"* {change.path} differs" in \
        REFERENCE[name]["messages"][-1]
    before = getattr(config, change.path)
    try:
        exec(change.snippet, {"jax": jxkernel})
        assert str(getattr(config, change.path)) == change.new != str(before)
    finally:
        config.update(change.path, before)


# the scenarios of APPLIED_RECORDED whose fix is the one written at the learner's line, read
# back from the source (in linecache, as a notebook cell's is)
AT_THE_LEARNERS_LINE = {"optimizer_state_dtype_promotes"} | SOURCE_READ


@pytest.mark.parametrize("name", sorted(APPLIED_RECORDED))
def test_the_fix_shown_applies_as_jax_recorded(name):
    kind, said, fixed = APPLIED_RECORDED[name]
    _, events = jx_events(name, lines=name in AT_THE_LEARNERS_LINE)
    changes = [c for c in events[-1].changes if c.kind == kind]
    assert changes and any(said in c.snippet or said in c.fix for c in changes), \
        events[-1].changes
    assert REFERENCE[fixed]["lowerings"] == 1            # JAX compiles the fixed program once
    _, mine = jx_events(fixed, misses=False)
    assert len([e for e in mine if e.compiled]) == 1, [(e.reason, e.changes) for e in mine]


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS if "out" in REFERENCE[n]))
def test_a_changed_closed_over_value_keeps_jaxs_old_answer_and_claims_nothing(name):
    """A bound method's self.k, a static self's attribute, a global array rebound to another
    shape, a NumPy array changed in place: JAX reuses its trace (one miss) and answers with
    the value it was traced with; so does jxkernel, and it says nothing of a recompile (there
    is none to explain)."""
    result, events = jx_events(name)
    assert [float(v) for v in result["out"]] == REFERENCE[name]["out"]
    # one first call per function JAX traced (a loop body written inside is one more)
    assert [e.reason for e in events] == ["first call"] * len(REFERENCE[name]["misses"])
    assert all(e.changes == () for e in events)


def test_static_object_with_eq_and_no_hash_is_told_to_get_a_hash():
    """JAX refuses it (ValueError) as an unhashable static; "pass it traced" cannot work for
    an object (not a pytree): the advice is a __hash__, and with it one program is compiled
    (static_eq_with_hash_fixed, one lowering in JAX)."""
    result, _ = jx_events("static_eq_without_hash")
    assert type(result).__name__ == REFERENCE["static_eq_without_hash"]["error"]
    # (the advice is the error's `advice`, which the card shows; its text is JAX's alone)
    assert "give Config a __hash__" in result.advice and "traced" not in result.advice
    assert result.advice not in str(result)
    assert REFERENCE["static_eq_with_hash_fixed"]["lowerings"] == 1
    # a frozen dataclass holding a list: its field named, a tuple advised (and applied: one
    # lowering in JAX), not "pass it traced"
    result, _ = jx_events("static_frozen_dataclass_with_list_field")
    assert type(result).__name__ == \
        REFERENCE["static_frozen_dataclass_with_list_field"]["error"]
    assert "Config's field sizes holds a list" in result.advice
    assert "traced" not in result.advice
    assert REFERENCE["static_frozen_dataclass_with_tuple_field_fixed"]["lowerings"] == 1


def test_a_static_dataclass_self_is_told_what_applies_to_a_dataclass():
    """A plain @dataclass (its __eq__ generated, so no __hash__) as a static self: frozen=True
    is the fix (static_self_plain_dataclass_fixed: one lowering in JAX), not "give it a
    __hash__ over its __eq__'s fields" as for a hand-written __eq__. A frozen one holding an
    array: a tuple of it is no more hashable; the array is traced, Model a registered pytree
    (static_self_array_field_fixed: one lowering in JAX for two values of w)."""
    result, _ = jx_events("static_self_plain_dataclass")
    assert type(result).__name__ == REFERENCE["static_self_plain_dataclass"]["error"]
    assert "make it @dataclasses.dataclass(frozen=True)" in result.advice
    assert "give Model a __hash__" not in result.advice
    assert REFERENCE["static_self_plain_dataclass_fixed"]["lowerings"] == 1
    result, _ = jx_events("static_self_array_field")
    assert type(result).__name__ == REFERENCE["static_self_array_field"]["error"]
    text = result.advice
    assert "field w holds an array" in text and "tuple" not in text
    assert "register_dataclass(Model, data_fields=['w'], meta_fields=[])" in text
    assert "take 'self' out of static_argnums" in text
    assert "register_dataclass(Model, data_fields=['w'], meta_fields=[])" in \
        SCENARIOS["static_self_array_field_fixed"][1]
    assert REFERENCE["static_self_array_field_fixed"]["lowerings"] == 1
    for fixed in ("static_self_plain_dataclass_fixed", "static_self_array_field_fixed"):
        _, mine = jx_events(fixed, misses=False)
        assert len([e for e in mine if e.compiled]) == 1, fixed


def test_a_static_dtype_or_shape_gets_a_fix_that_fits_it():
    """np.float32, jnp.float32, 'float32': one dtype, three keys in JAX; the fix makes them
    one (jnp.dtype: static_dtype_scalar_type_then_dtype_fixed, all four kinds, lowers once),
    not `dtype = type(dtype)`. A static shape tuple must stay static: not "choose with
    lax.switch" as for a mode string."""
    _, events = jx_events("static_numpy_type_then_jnp_type_then_string")
    assert len(events) == 3
    for event in events[1:]:
        (change,) = event.changes
        assert change.snippet.startswith("dtype = jnp.dtype(dtype)"), change
    assert REFERENCE["static_dtype_scalar_type_then_dtype_fixed"]["lowerings"] == 1
    _, events = jx_events("static_shape_tuple_changes")
    (change,) = events[-1].changes
    assert "lax.switch" not in change.fix + change.snippet, change
    assert "a shape cannot be traced" in change.fix and "traced:" not in change.snippet


def test_a_callable_object_jitted_anew_is_told_and_its_fix_applies():
    """jax.jit(Model(k)) with a new object each time: JAX 0.10.2 traces and compiles twice
    (its log names the function <unknown>, defined nowhere, so the recording has no miss of
    it); jxkernel compiles twice too, and the second compile says why (a new object of the
    same class), with a fix JAX lowers once (callable_object_jitted_anew_fixed)."""
    start = compile_log.last_seq() + 1
    run(jxkernel, "callable_object_jitted_anew", "object")
    events = [e for e in compile_log.events_since(start)
              if e.function == "<unnamed function>"]          # JAX's name of the jit
    assert [e.compiled for e in events] == [True, True]
    (change,) = events[-1].changes
    assert change.kind == "fresh_jit" and "a new Model object" in change.fix
    assert "apply = jax.jit(lambda model, x: model(x))" in change.snippet
    assert "lambda m: ((m.k,), None), lambda _, leaves: Model(*leaves))" in change.snippet
    assert REFERENCE["callable_object_jitted_anew_fixed"]["lowerings"] == 1
    _, mine = jx_events("callable_object_jitted_anew_fixed", misses=False)
    assert len([e for e in mine if e.compiled]) == 1


def test_explanations_of_structure_say_what_changed():
    def only(name):
        _, events = jx_events(name)
        (change,) = events[-1].changes
        return change
    change = only("python_list_vs_array")          # one change, not one per number
    assert (change.path, change.old) == ("x", "f32[2]") and "2 Python numbers" in change.new
    change = only("dataclass_meta_field")          # not "a tuple, a list or a dict..."
    assert (change.old, change.new) == ("Layer meta ('id',)", "Layer meta ('tanh',)")
    assert "meta fields" in change.fix and "container" not in change.fix
    change = only("static_argnames_given_positionally")
    assert (change.path, change.old, change.new) == ("n", "by position", "by keyword")
    change = only("ones_static_n")                 # n sets a shape: traced would not do
    assert "n sets a shape" in change.fix and "drop it from static_argnums" in change.fix


_TREE_SCENARIOS = [n for n in SCENARIOS if n not in RAISES and
                   any(m["kind"] == "tree" for m in _jit_misses(n))]


@pytest.mark.parametrize("name", _TREE_SCENARIOS)
def test_a_structure_changes_one_line_names_the_node(name):
    """Where JAX says "different input pytree", the one-line reason names the node that
    changed, as the change lines do (not two PyTreeDefs); the logger keeps JAX's heading."""
    logged = []
    _, events = jx_events(name, logged)
    for event in events:
        nodes = [c for c in event.changes if c.kind == "structure"]
        assert "PyTreeDef" not in event.reason, event.reason
        assert all(f"{c.path}: " in event.reason and f"{c.old} -> {c.new}" in event.reason
                   for c in nodes), \
            (event.reason, nodes)
    assert any("different input pytree:" in m for m in logged), logged


def test_explain_cache_misses_logs_the_users_functions_only():
    """As JAX, which skips its own files: a jitted function inside the library (jnp.sum's)
    and an eager operation's program are compiles, not tracing misses of the user's
    functions, and are not logged; vmap of the user's jitted function traces it, a miss JAX
    logs (the vmap_of_jit scenario), and so is logged."""
    before = config.jax_explain_cache_misses
    config.update("jax_explain_cache_misses", True)
    try:
        with logged_messages() as messages:
            jnp.sum(jnp.ones(13)); jnp.sum(jnp.ones(14)); jnp.sin(jnp.ones(15))
            jxkernel.vmap(jxkernel.jit(lambda x: x * 16))(jnp.ones((2, 16)))
            mine = jxkernel.jit(lambda x: x * 17)
            mine(jnp.ones(17))
    finally:
        config.update("jax_explain_cache_misses", before)
    assert len(messages) == 2, messages
    for message in messages:
        assert "never seen function" in message and "test_recompile_corpus.py" in message


# ================================================================== the guard's error
def test_a_refusal_names_the_users_function_and_a_call_that_applies():
    def shift(x):
        return x + 1
    f = jxkernel.jit(shift)
    f(jnp.ones(3))
    compile_log.fail_on_recompile(f)
    with pytest.raises(RecompileError) as info:
        f(jnp.ones(4))
    text = str(info.value)
    assert "jit(shift)" in text and "x: f32[3] -> f32[4]" in text
    assert "fail_on_recompile(f, False)" in text, text      # f: the name it is called by
    assert "#" not in text.split("fail_on_recompile(", 1)[1], text    # no internal key
    compile_log.fail_on_recompile(f, False)


def test_a_refusal_of_a_function_held_by_no_name_says_how_to_name_it():
    def scale(x):
        return x * 3
    holder = [jxkernel.jit(scale)]          # held by a list: no name in the caller
    holder[0](jnp.ones(3))
    compile_log.fail_on_recompile(holder[0])
    try:
        with pytest.raises(RecompileError) as info:
            holder[0](jnp.ones(5))
    finally:
        compile_log.fail_on_recompile(holder[0], False)
    text = str(info.value)
    assert "%jxguard off scale" in text and "f being your jit(scale)" in text, text
    assert not re.search(r"#\d{6,}", text), text


def test_the_global_guard_refuses_the_users_functions_not_jxkernels_kernels():
    # an eager jnp.sum on a new shape compiles jxkernel's kernel anew, as JAX's would: the
    # guard is for the user's functions (JAX hides its internal misses too); the user's own
    # jit inside the same block is refused, named as the user wrote it, without internal keys
    x = jnp.ones(5)
    jnp.sum(x)
    double = jxkernel.jit(lambda v: v * 2)
    double(x)
    with compile_log.no_recompile():
        jnp.sum(jnp.ones(7))
        with pytest.raises(RecompileError) as info:
            double(jnp.ones(7))
    text = str(info.value)
    assert "jxkernel/" not in text and not re.search(r"#\d{6,}", text), text
    assert "f32[5] -> f32[7]" in text and "no_recompile" in text


def test_a_jit_the_user_makes_of_a_library_function_is_the_users():
    # exercise 02's `summed = jax.jit(jnp.sum)`: jnp.sum is defined inside jxkernel, but the
    # user made this jit, so its recompiles are theirs (notes, the guard); jnp's own kernels
    # called eagerly stay internal
    # Every jit of jnp.sum shares its caches, as JAX's are per function (the tour's notebook 02
    # runs summed on f32[2], f32[3], ... in-process), and the key the message names is the
    # least by text of all earlier keys one shape away: an earlier test's jit of jnp.sum in
    # this worker (f32[15], found in a random-order run) is named instead. clear_cache() starts
    # jnp.sum's history afresh (as JAX's evicts the function's traces) whatever ran before.
    summed = jxkernel.jit(jnp.sum)
    summed.clear_cache()
    summed(jnp.ones((2, 19)))
    summed(jnp.ones((3, 19)))
    mine = [e for e in jxkernel.compile_events() if e.key is summed]
    assert [e.origin for e in mine] == ["user", "user"], mine
    with compile_log.no_recompile(), pytest.raises(RecompileError) as info:
        summed(jnp.ones((4, 19)))
    assert "inside jxkernel" not in str(info.value) and \
        "f32[2,19] -> f32[4,19]" in str(info.value)     # (JAX names the first by text of
    # the keys one shape away: f32[2,19] and f32[3,19] -- shape_tie_named_by_text)


# ================================================================== %%jit cells
def test_two_jit_cells_of_different_code_are_not_one_function_made_anew():
    """Every %%jit cell is jitted through a wrapper of one code (functools.wraps of the
    cell's function): the explainer looks through it, so the first compile of a second,
    different cell is a first call, not "a new jit(...) of the same code"."""
    pytest.importorskip("IPython")
    pytest.importorskip("ipywidgets")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jxkernel")
    start = compile_log.last_seq() + 1
    with capture_output():
        for source in ("import jxkernel.numpy as jnp\nxc = jnp.ones(3)",
                       "%%jit\nyc = xc + 1", "%%jit\nzc = jnp.sin(xc) * 2"):
            result = shell.run_cell(source, store_history=True)
            assert result.error_in_exec is None and result.error_before_exec is None
    events = [e for e in compile_log.events_since(start) if e.function.startswith("cell[")]
    assert len(events) == 2, events
    for e in events:
        assert e.reason == "first call" and e.changes == (), e


# ================================================================== a jit traced inside another
def test_a_jit_traced_inside_another_is_told_at_the_trace_as_a_retrace():
    """grad(loss_jit) inside step_jit on a new shape: JAX logs loss's tracing miss at the
    trace; nothing of loss compiles (its program is part of step's), so its event is a
    retrace, not a compile: not counted, not printed by jax_log_compiles, and a later direct
    call at those types reuses the trace (a compile without a miss)."""
    logged = []
    _, events = jx_events("grad_of_jit_inside_jit_new_shape", logged)
    loss = [e for e in events if e.function == "loss"]
    assert [(e.compiled, e.inlined_into, e.reason) for e in loss] == \
        [(False, "jit(step)", "first call"), (False, "jit(step)", "x: f32[3] -> f32[4]")]
    assert loss[1].nth == 0 and loss[1].again        # no compile of loss, told as a change
    (message,) = [m for m in logged if "for loss defined at" in m]
    assert "* at x, now f32[4] and before f32[3]" in message      # JAX's words
    assert "(jxkernel: traced inside jit(step); nothing compiled of its own)" in message
    assert str(loss[1]).startswith("Tracing loss(x: f32[4]) because x: f32[3] -> f32[4]")
    # the report keeps retraces apart from compilations
    from jxkernel.views import compile_report
    data = compile_report.report_data(events)
    assert (data["totals"]["compilations"], data["totals"]["retraces"]) == (2, 2)
    # loss_jit called directly at f32[4]: the trace made inside step is reused
    result = run(jxkernel, "grad_of_jit_inside_jit_new_shape", "direct")
    start = compile_log.last_seq() + 1
    result["loss_jit"](jnp.ones(4))
    (direct,) = [e for e in compile_log.events_since(start) if e.function == "loss"]
    assert direct.compiled and not direct.miss and direct.changes == ()


def test_a_jit_traced_inside_make_jaxpr_is_told_inside_make_jaxpr():
    """make_jaxpr(f) of a jitted f: JAX logs two misses, make_jaxpr's trace at the call and
    the jit's own at no call site (""), and nothing more. The jit's event names make_jaxpr's
    trace as the user called it ("make_jaxpr(<lambda>)", not "jit(<lambda>)": that reads as
    the function traced inside itself), on a line of jxkernel's own, apart from JAX's."""
    logged = []
    _, events = jx_events("make_jaxpr_of_jit", logged)
    assert [e.inlined_into for e in events] == ["make_jaxpr(<lambda>)"] * 2
    expected = REFERENCE["make_jaxpr_of_jit"]["messages"]
    assert len(logged) == len(expected)
    for ours, theirs in zip(logged, expected):
        mine = [line for line in ours.splitlines() if not line.startswith("    fix:")
                and not line.startswith("      ")]
        own = [line for line in mine if line.startswith("  (jxkernel: ")]
        jaxs = [line.replace(re.search(r"<recompile:\S+ \d+>", ours)[0],
                             "<recompile:make_jaxpr_of_jit>") for line in mine
                if line not in own]
        assert jaxs == theirs.splitlines(), (ours, theirs)
        # JAX's own lines never begin so: jxkernel's line cannot be taken for one of them
        assert not any(line.startswith("  (") for line in theirs.splitlines())
        assert own == ([] if ours.startswith("TRACING CACHE MISS at <") else
                       ["  (jxkernel: traced inside make_jaxpr(<lambda>); "
                        "nothing compiled of its own)"]), ours


def test_a_context_made_after_a_compile_names_it_and_counts_the_contexts():
    _, events = jx_events("user_context_made_after_a_call")
    (change,) = events[-1].changes
    assert (change.path, change.kind) == ("user contexts", "config")
    assert int(change.new) == int(change.old) + 1
    assert "A new jax.make_user_context context (mode)" in change.fix
    _, events = jx_events("user_context_two_contexts")     # only ctx_b changed
    (change,) = events[-1].changes
    assert (change.path, change.old, change.new) == ("ctx_b (user context)", "None", "2")
    assert change.snippet.startswith("ctx_b.set_global(2)")


@pytest.mark.xla_only("XLA text")
def test_an_export_is_the_functions_compile_and_a_call_after_it_is_explained():
    """As JAX logs it: export(f) traces f for f32[n] (a miss, and a lowering); a call on
    f32[3] is a shape change from it, which no padding fixes: told as expected."""
    _, events = jx_events("export_symbolic")
    assert [e.reason for e in events] == ["first call", "x: f32[n] -> f32[3]"]
    (change,) = events[-1].changes
    assert change.kind == "shape" and "nothing to fix" in change.fix and change.snippet == ""


# ================================================================== control-flow bodies
# A body's fix as a learner would apply it: the explanation's kind and code, then the program
# with it applied traces each body once (here, and under JAX 0.10.2: the "never seen
# function" misses only, run by hand with reference/make_recompile_reference.py's logger when
# this was written; the numbers are JAX's)
APPLIED_BODIES = {
    "scan_new_lambda_each_call": (
        "fresh_body", "def body(...):    # once, then pass the same function to lax.scan",
        "def body(c, x):\n"
        "    return c + x, None\n"
        "for i in range(3):\n"
        "    jax.lax.scan(body, 0.0, jnp.ones(3))\n", 1),
    "cond_lambdas_in_a_loop": (       # the closure over k: k passed as an operand
        "fresh_body", "k passed in, not closed over",
        "def times(x, k):\n"
        "    return x * k\n"
        "def same(x, k):\n"
        "    return x\n"
        "out = [jax.lax.cond(True, times, same, jnp.ones(2), k) for k in (1.0, 2.0)]\n"
        "assert float(out[1][0]) == 2.0\n", 2),
    "fori_loop_body_types": (
        "dtype", "jax.lax.fori_loop(0, 3, body, 1.0)",
        "def body(i, c):\n"
        "    return c + i\n"
        "for init_val in (1.0, jnp.float32(1.0), 1):\n"
        "    init_val = jnp.asarray(init_val, jnp.float32)\n"
        "    jax.lax.fori_loop(0, 3, body, init_val)\n", 1),
    "scan_body_weak_carry": (
        # (the weak start was the earlier line: the retraced one passes an array, no code)
        "weak_type", "Pass the lax.scan jnp.asarray(..., jnp.float32) as init.",
        "def body(c, x):\n"
        "    return c + x, None\n"
        "for init in (0.0, jnp.float32(0.0)):\n"
        "    init = jnp.asarray(init, jnp.float32)\n"
        "    jax.lax.scan(body, init, jnp.ones(3))\n", 1),
    "while_loop_carry_dtype": (
        "dtype", "jax.lax.while_loop(cond, body, jnp.asarray(jnp.float32(1), jnp.int32))",
        "def cond(c):\n"
        "    return c < 10\n"
        "def body(c):\n"
        "    return c * 2\n"
        "for init_val in (jnp.int32(1), jnp.float32(1)):\n"
        "    init_val = jnp.asarray(init_val, jnp.int32)\n"
        "    jax.lax.while_loop(cond, body, init_val)\n", 2),
    # cond's closure over tol made anew: tol in the carry, as while_loop passes cond and body
    # the carry alone (a second parameter, `def cond(..., tol)` as it was, is a TypeError;
    # cond's pattern: test_a_body_made_anew_for_a_new_carry_shape_has_nothing_to_fix); the
    # body, reading nothing, made once
    "while_loop_closures_made_anew": (
        "fresh_body", "def body(...):    # once, then pass the same function to lax.while_loop",
        "def cond(carry):\n"
        "    c, tol = carry\n"
        "    return jnp.sum(c ** 2) > tol\n"
        "def body(carry):\n"
        "    c, tol = carry\n"
        "    return c * 0.5, tol\n"
        "for tol in (1.0, 2.0):\n"
        "    jax.lax.while_loop(cond, body, (jnp.ones(3), tol))\n", 2),
}


def test_a_body_made_anew_for_a_new_carry_shape_has_nothing_to_fix():
    """cond and body made anew in each call, closing over tol, the carry a new shape (JAX
    0.10.2 traces both again, recorded): one function object would be traced again for the
    shape, so the closure's fix (tol in the carry) is not offered; it was, with a pattern
    while_loop cannot call (Optax 0.2.8's lbfgs page)."""
    _, events = jx_events("while_loop_closures_new_carry_shape")
    again = [c for e in events for c in e.changes if c.kind == "fresh_body"]
    assert len(again) == 2, [(e.reason, e.changes) for e in events]
    assert all("nothing to fix" in c.fix and "f32[8] -> f32[6]" in c.fix and not c.snippet
               for c in again), again
    # the same shapes: cond, closing over tol, is told to take it in the carry, as
    # APPLIED_BODIES["while_loop_closures_made_anew"] runs it
    _, events = jx_events("while_loop_closures_made_anew")
    (told,) = [c for e in events for c in e.changes if c.kind == "fresh_body" and
               "reads tol" in c.fix]
    assert told.snippet.startswith("def cond(carry):    # once, outside the loop: tol in the "
                                   "carry (..., tol = carry)"), told


@pytest.mark.parametrize("name", sorted(APPLIED_BODIES))
def test_a_bodys_fix_applies(name):
    kind, snippet, fixed, traces = APPLIED_BODIES[name]
    _, events = jx_events(name, lines=True)
    change = events[-1].changes[0]
    assert not events[-1].compiled and change.kind == kind and \
        snippet in (change.snippet or change.fix), change
    start = compile_log.last_seq() + 1
    file = f"<fixed-body:{name}>"
    exec(compile(fixed, file, "exec"), {"jax": jxkernel, "jnp": jnp})
    mine = [e for e in compile_log.events_since(start) if (e.source or "").startswith(file)]
    assert len(mine) == traces and all(e.reason == "first call" and not e.changes
                                       for e in mine), [(e.reason, e.changes) for e in mine]


def test_a_body_fix_names_what_it_reads_from_outside():
    """`lambda x: x * k` over a global k made anew in a loop: "define it once" would reuse
    the trace with the old k (JAX's cache and ours bake k in: cond_branch_closure_rebound), so
    the fix passes k in; the branch reading nothing (`lambda x: x`) is told to be made once;
    a body made inside a jitted function, new because that function is traced again (a new
    shape, a new static value), is no change of the learner's: no card (JAX 0.10.2 logs it
    as a function never seen, with its "re-defined repeatedly?" guess, recorded)."""
    _, events = jx_events("cond_lambdas_in_a_loop")
    fixes = [e.changes[0].fix for e in events if e.changes]
    assert len(fixes) == 2 and any("reads k from outside" in f for f in fixes), fixes
    assert any("Define it once" in f and "reads" not in f for f in fixes), fixes
    for name, function in (("fori_loop_lambda_in_jit", "<lambda>"),
                           ("scan_body_inside_jit_static", "body")):
        assert REFERENCE[name]["misses"][-1]["kind"] == "never seen function"
        _, events = jx_events(name)
        bodies = [e for e in events if e.function == function]
        assert len(bodies) == 2 and not any(e.changes for e in bodies), \
            [e.changes for e in bodies]
        assert all(e.reason == "first call" and not e.again for e in bodies)


def test_a_body_made_again_within_one_trace_keeps_its_card():
    """A lambda made on each turn of a Python loop inside one jitted function's trace: a new
    object within the same trace, which one object made outside the loop would save: the
    card stays (the retrace-of-the-outer rule leaves it)."""
    source = ("@jax.jit\n"
              "def h(x):\n"
              "    for k in range(2):\n"
              "        x = jax.lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: v - 1, x)\n"
              "    return x\n"
              "h(jnp.ones(3))\n")
    start = compile_log.last_seq() + 1
    exec(compile(source, "<one-trace-loop>", "exec"), {"jax": jxkernel, "jnp": jnp})
    events = [e for e in compile_log.events_since(start) if e.function == "<lambda>"]
    fresh = [c for e in events for c in e.changes if c.kind == "fresh_body"]
    assert len(events) == 4 and len(fresh) == 2, [(e.reason, e.changes) for e in events]
    assert all("Define it once" in c.fix for c in fresh)


def test_a_rebound_global_read_by_a_branch_keeps_its_traced_value_as_in_jax():
    """JAX 0.10.2 keeps a branch's trace by the function object: after `k = 3.0` the same
    branch reuses the trace made with k = 2.0 (no miss, JAX's result [2, 2, 2] too)."""
    env = run(jxkernel, "cond_branch_closure_rebound", "values")
    out = env["jax"].lax.cond(True, env["branch"], env["other"], jnp.ones(3))
    assert env["k"] == 3.0 and [float(v) for v in out] == [2.0, 2.0, 2.0]


def test_a_body_is_logged_where_jax_logs_it_and_lax_map_is_not():
    """A body's miss is logged at the user's line that ran the loop (inside a jitted function:
    that function's line), naming the user's function, never jxkernel's files; lax.map's
    function is traced through jxkernel's own wrapper, which JAX's logs nothing of either."""
    logged = []
    jx_events("fori_loop_lambda_in_jit", logged)
    assert all("jxkernel" + os.sep not in m for m in logged), logged
    # (recorded: JAX's line and column of the fori_loop call in f, "...:3:11 (f):")
    assert sum(":3:11 (f):" in m.splitlines()[0] for m in logged) == 2, logged
    logged = []
    _, events = jx_events("lax_map_function", logged)
    assert logged == [] and events == []


def test_a_bodys_dtype_fix_casts_the_argument_its_input_comes_from():
    """A scan body's x comes from xs, its carry from init; fori_loop's carry from init_val:
    the fix casts that argument (casting init would not change x's dtype)."""
    def body(c, x):
        return c + x.sum(), None
    jxkernel.lax.scan(body, 0.0, jnp.ones((3, 2)))
    jxkernel.lax.scan(body, 0.0, jnp.ones((3, 2), jnp.int32))
    (change,) = [e for e in compile_log.compile_events() if e.key is body][-1].changes
    assert (change.path, change.kind) == ("x", "dtype")
    # the call's own line, its xs wrapped (it names no variable `xs` the line lacks)
    assert change.snippet.startswith("jxkernel.lax.scan(body, 0.0, jnp.asarray(jnp.ones((3, 2), "
                                     "jnp.int32), jnp.float32))"), change.snippet


# ================================================================== which key is named (stop 60)
def test_equal_static_values_of_other_types_are_other_programs_as_in_jax():
    """JAX's Static compares the values' types too: with the flag static, f(x, True) and
    f(x, 1) are two traces, and 1 runs its own (`1 is True` is False there); jxkernel took
    them for one key and ran True's program for 1 -- on the fast path too (a second call of
    a key is served there: the first two calls fill it)."""
    f = jxkernel.jit(lambda x, flag: x * 2 if flag is True else x, static_argnums=1)
    for flag, want in ((True, 2.0), (True, 2.0), (1, 1.0), (1, 1.0), (True, 2.0)):
        assert float(f(jnp.ones(()), flag)) == want, flag
    g = jxkernel.jit(lambda x, *, n: x * 2 if isinstance(n, float) else x,
                     static_argnames="n")
    for n, want in ((2.0, 2.0), (2.0, 2.0), (2, 1.0), (2, 1.0)):
        assert float(g(jnp.ones(()), n=n)) == want, n
    assert f._cache_size() == 2 and g._cache_size() == 2
    (change,) = [e for e in compile_log.compile_events() if e.key is g][-1].changes
    assert (change.kind, change.old, change.new) == ("static", "2.0", "2")


def test_the_key_named_is_the_one_jax_names():
    """Of the earlier keys, JAX 0.10.2 names the least (severity, count, text): the named
    old types and values here are those of tests/data/recompile_reference.json."""
    def last(name):
        _, events = jx_events(name)
        return [(c.path, c.kind, c.old, c.new) for c in events[-1].changes]
    assert last("shape_tie_named_by_text") == [("x", "shape", "f32[3]", "f32[4]")]
    assert last("static_tie_named_by_text") == [("n", "static", "10", "3")]
    assert last("two_arguments_tie") == [("a", "shape", "f32[2]", "f32[3]")]
    assert last("fewer_leaves_differ") == [("a", "shape", "i32[2]", "f32[3]")]
    assert [k for _, k, _, _ in last("structure_before_types")] == ["structure"]
    assert last("static_before_shape") == [("n", "static", "3", "2")]
    assert last("config_before_types") == [("jax_enable_x64", "config", "False", "True")]
    assert last("static_equal_values_other_types") == [("n", "static", "1", "2")]
    # JAX: "now list of length 3 and before list of length 1" (one difference each: the list,
    # told once by its first new item; it was a change per item, each the same note)
    assert last("int_list_length_changes") == [("xs[1]", "structure", "absent", "f32[2]")]


def test_an_equal_static_of_another_type_is_told_so_and_its_fix_applies():
    """f(x, True), then f(x, 1) with n static: equal, other types, two programs (as in JAX);
    the fix casts to one type, and then one program serves both calls."""
    _, events = jx_events("static_equal_values_other_types")
    (change,) = events[1].changes
    assert (change.kind, change.old, change.new) == ("static", "True", "1")
    assert "(int) now and was True (bool)" in change.fix and change.snippet.startswith(
        "n = bool(n)")
    start = compile_log.last_seq() + 1
    fixed = ("f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
             "for n in (True, 1):\n"
             "    n = bool(n)\n"
             "    f(jnp.ones(3), n)\n")
    exec(compile(fixed, "<fixed:static_type>", "exec"), {"jax": jxkernel, "jnp": jnp})
    mine = [e for e in compile_log.events_since(start) if (e.source or "").startswith(
        "<fixed:static_type>")]
    assert len(mine) == 1, [(e.reason, e.changes) for e in mine]


def test_a_static_object_shows_its_fields_and_a_fix_with_them():
    """An object of a class with object's repr (an address) is shown by its fields, and the
    __hash__/__eq__ fix names its own fields (it named self.k for any class)."""
    class Layer:
        def __init__(self, width, act):
            self.width, self.act = width, act

        def apply(self, x):
            return x * self.width
    f = jxkernel.jit(Layer.apply, static_argnums=0)
    f(Layer(2, "relu"), jnp.ones(3)); f(Layer(2, "relu"), jnp.ones(3))
    (change,) = [e for e in compile_log.compile_events() if e.key is f][-1].changes
    assert (change.old, change.new) == ("Layer(width=2, act='relu')",) * 2
    assert "hash((self.width, self.act))" in change.snippet
    assert "(other.width, other.act)" in change.snippet and "self.k" not in change.snippet


@pytest.mark.parametrize("name", ["fori_loop_int_start_float_body", "scan_int_start_float_body"])
def test_a_promoted_loop_start_is_told_as_the_loops_own_retrace(name):
    """A loop from a Python int whose body returns floats: JAX promotes the start and traces
    the body again in the same call (two misses). The fix starts from the type the body
    returns (the recorded fixed program traces once); the cast to the start's own dtype that
    the note once advised is what JAX refuses (recorded: TypeError)."""
    assert [m["kind"] for m in REFERENCE[name]["misses"]] == ["never seen function", "types"]
    _, events = jx_events(name)
    (change,) = events[-1].changes
    assert change.kind == "dtype" and "promoted the start to f32[]" in change.fix, change
    assert "was given another dtype" not in change.fix
    # the line cannot be read (no linecache): no code naming a variable the line may lack
    assert change.snippet == "" and "jnp.asarray(..., jnp.float32) as" in change.fix, change
    if name.startswith("fori"):
        assert len(REFERENCE["fori_loop_int_start_float_body_fixed"]["misses"]) == 1
        _, mine = jx_events("fori_loop_int_start_float_body_fixed")
        assert len(mine) == 1, [(e.reason, e.changes) for e in mine]
        assert REFERENCE["fori_loop_int_start_cast_back"]["error"] == "TypeError"


def test_a_jit_traced_in_a_scans_body_with_its_slices_is_no_partial_batch():
    """step called with 32 rows, then by a scan's body with batches of 25: JAX 0.10.2 traces
    it once more (x f32[32,3] -> f32[25,3], recorded), for the scan's program; the same slice
    at every step, so no partial batch to pad (the note said to pad to 32 and mask)."""
    recorded = REFERENCE["jit_in_a_scan_body_with_slices"]
    assert [m["kind"] for m in recorded["misses"] if m["function"] == "step"] == \
        ["never seen function", "types"]
    _, events = jx_events("jit_in_a_scan_body_with_slices")
    (last,) = [e for e in events if e.function == "step" and e.changes]
    assert last.inlined_into is not None and last.inlined_into.startswith("scan(")
    for change in last.changes:
        assert "at every step of scan(" in change.fix and "partial batch" not in change.fix, \
            change.fix
        assert change.snippet == ""


def test_a_promoted_start_the_body_still_differs_from_is_not_told_to_start_there():
    """A loop from 1.5 whose body returns int32: JAX promotes the start to f32 (the type both
    can take), traces the body again and raises that the carry's types differ (recorded). The
    note said the body returns f32 and advised starting from f32, which raises the same; it
    says the body returns i32, that the loop raises, and writes no code (the error's card
    has the fix)."""
    recorded = REFERENCE["fori_loop_float_start_int_body"]
    assert [m["kind"] for m in recorded["misses"]] == ["never seen function", "types"]
    assert recorded["error"] == "TypeError"
    result, events = jx_events("fori_loop_float_start_int_body")
    assert type(result).__name__ == "TypeError"
    (change,) = events[-1].changes
    assert "the loop's body returns i32[] for it" in change.fix, change.fix
    assert "raises that the carry's types differ" in change.fix
    assert "the type the body returns" not in change.fix and change.snippet == ""


@pytest.mark.parametrize("name", ["scan_int_start_float_body", "fori_loop_int_start_float_body",
                                  "scan_int_variable_start_float_body",
                                  "scan_int_start_in_jit", "cond_operand_float_then_int"])
def test_a_promoted_start_is_fixed_on_the_learners_own_line(name):
    """The fix of a loop started from a Python int is the learner's call line rewritten (the
    number wrapped where it is written, or the variable the line passes cast before it): it
    once named `init`, which `lax.scan(step, 0, xs)` does not have (NameError when pasted).
    Pasted into the program (the recorded `_fixed` scenario), JAX 0.10.2 traces each body
    once (recorded), and so does jxkernel. A cond's operand 2 after 1.0 gets 2.0: the earlier
    trace was of a Python float (weak), which jnp.asarray(2, jnp.float32) would miss (JAX)."""
    fixed = f"{name}_line_fixed" if name.startswith("fori") else f"{name}_fixed"
    assert len(REFERENCE[name]["misses"]) > len(REFERENCE[fixed]["misses"])
    assert all(m["kind"] == "never seen function" for m in REFERENCE[fixed]["misses"])
    _, events = jx_events(name, lines=True)
    retraced = [e for e in events if e.changes]
    assert retraced
    for event in retraced:
        (change,) = event.changes
        code = change.snippet.split("#")[0].strip()
        assert code in SCENARIOS[fixed][1], (code, SCENARIOS[fixed][1])
        assert "init" not in code or "init" in SCENARIOS[name][1], code
    # the pasted program: the original with the line the fix rewrites replaced (or, for a
    # variable's cast, the cast before the call)
    _, mine = jx_events(fixed, lines=True)
    assert len(mine) == len(REFERENCE[fixed]["misses"]), [(e.function, e.reason) for e in mine]
    assert not any(e.changes for e in mine)


def test_a_weak_start_passed_as_an_array_names_no_variable():
    """fori_loop from 1.0, then from jnp.float32(1.0): the weak one was the earlier line, so
    the retraced line (an array already) gets no code; a Python number on the retraced line
    gets the number wrapped."""
    _, events = jx_events("fori_loop_body_types", lines=True)
    weak = next(c for e in events for c in e.changes if c.kind == "weak_type")
    assert weak.snippet == "" and "init_val" not in weak.snippet, weak
    dtype = next(c for e in events for c in e.changes if c.kind == "dtype")
    # (the nearest earlier trace is 1.0's, weakly typed: a Python float hits it)
    assert dtype.snippet.startswith("jax.lax.fori_loop(0, 3, body, 1.0)"), dtype


def test_a_loop_given_another_dtype_keeps_the_cast_to_one_dtype():
    """Two calls of a loop with different carry dtypes (not a promotion): the fix is still a
    cast of what is passed to one dtype."""
    _, events = jx_events("while_loop_carry_dtype")
    change = events[-1].changes[0]
    assert "promoted" not in change.fix and "to one dtype" in change.fix, change


@pytest.mark.parametrize("name, function, value, helper", [
    ("closure_number_rebound", "<lambda>", "k", ""),
    ("closure_array_rebound_new_shape", "<lambda>", "w", ""),
    ("closure_numpy_array_mutated", "<lambda>", "w", ""),
    ("cond_branch_closure_rebound", "branch", "k", ""),
    ("helper_global_rebound", "<lambda>", "k", "helper"),
    ("loop_body_global_rebound", "f", "k", ""),
])
def test_a_value_read_from_outside_that_changed_is_told_once(name, function, value, helper):
    """JAX keeps the value a function read from outside when it was traced (recorded: the
    old answer, or a hit of the branch), also where a helper it calls read it, or a loop
    body written inside it; outside_values tells that it changed since, once, with the value
    as traced and as it is now, by the function the user called (a loop body traced on its
    own inside f is not told again)."""
    from jxkernel.views import outside_values
    outside_values.stale_reads()                 # what earlier tests left
    result, _ = jx_events(name, fresh=True)
    if "out" in REFERENCE[name]:
        assert [float(v) for v in result["out"]] == REFERENCE[name]["out"]
    stale = outside_values.stale_reads()
    found = [s for s in stale if s.function == function and s.name == value
             and s.call_site is not None]
    assert len(found) == 1 and len(stale) == 1, stale
    assert found[0].then != found[0].now and found[0].helper == helper
    assert outside_values.stale_reads() == []    # told once


def test_the_fix_for_a_helpers_global_passes_it_on_and_uses_the_new_value():
    """The note's fix for a helper's global (pass it to the jitted function and on to the
    helper) applied: JAX answers with the new value from one program (recorded), and so
    does jxkernel, with nothing stale to tell."""
    from jxkernel.views import outside_values
    outside_values.stale_reads()
    ref = REFERENCE["helper_global_passed_on"]
    assert ref["out"] == [4.0] * 3 and ref["lowerings"] == 1
    result, events = jx_events("helper_global_passed_on", misses=False, fresh=True)
    assert [float(v) for v in result["out"]] == ref["out"]
    assert len([e for e in events if e.compiled]) == 1
    assert outside_values.stale_reads() == []


def test_a_python_number_then_vmap_is_fixed_in_the_earlier_call_not_at_the_vmap():
    """f(1.0), then jax.vmap(f)(x), x float32 (learner13): the weak side is the earlier
    call's Python number, as JAX's miss says ("now f32[]{weak_type=False} and before
    f32[]{weak_type=True}"). The cast it was told to paste (x = jnp.asarray(x, jnp.float32),
    x float32 already) leaves JAX's miss; an array in the first call alone moves it to
    jax.grad(f)(1.0) (the line 7 of learner13_array_first_then_vmap); the snippet shown, put
    in each call given a Python number, traces once in JAX and in jxkernel."""
    jax_said = REFERENCE["learner13_python_number_then_vmap"]["misses"]
    assert [m["kind"] for m in jax_said] == ["never seen function", "types"]
    assert jax_said[1]["changes"] == [{"after": "f32[]{weak_type=False}", "before":
                                       "f32[]{weak_type=True}", "kind": "weak_type",
                                       "path": "x"}]
    _, events = jx_events("learner13_python_number_then_vmap")
    (unread,) = events[-1].changes        # the earlier call's line unreadable: no number as code
    # (nor is it known to be a number: a name may hold an array made from one, weak too)
    assert unread.snippet == "" and \
        "given a Python number or an array made from one without a dtype)" in unread.fix
    _, events = jx_events("learner13_python_number_then_vmap", lines=True)
    (change,) = events[-1].changes
    assert change.kind == "weak_type" and change.old == "f32[] (weak)"
    assert "as in f(1.0)" in change.fix
    assert "earlier call of f" in change.fix and "no rewrite of that array" in change.fix
    assert "jax.grad(f) of one" in change.fix
    assert "x = jnp.asarray(x" not in change.snippet
    pasted = REFERENCE["learner13_python_number_then_vmap_cast_pasted"]
    assert "x = jnp.asarray(x, jnp.float32)" in SCENARIOS[
        "learner13_python_number_then_vmap_cast_pasted"][1]
    assert [m["kind"] for m in pasted["misses"]] == ["never seen function", "types"]
    moved = REFERENCE["learner13_array_first_then_vmap"]
    assert ">:7 (" in moved["messages"][-1] and "now f32[]{weak_type=True}" in \
        moved["messages"][-1]
    _, events = jx_events("learner13_array_first_then_vmap")
    assert [e.reason for e in events][0] == "first call" and len(events) == 2
    fixed = "learner13_arrays_in_every_call_fixed"
    assert change.snippet.split("    #")[0] == "jnp.asarray(1.0, jnp.float32)"
    assert "f(jnp.asarray(1.0, jnp.float32))" in SCENARIOS[fixed][1]
    assert [m["kind"] for m in REFERENCE[fixed]["misses"]] == ["never seen function"]
    _, events = jx_events(fixed)
    assert [e.reason for e in events] == ["first call"]


def test_the_earlier_calls_number_is_the_learners_own():
    """The code under vmap after a Python number puts the learner's own number in an array
    (f(-2.5): jnp.asarray(-2.5, ...)), never an example's, which would change the value."""
    source = ("@jax.jit\ndef f(x):\n    return x * 2\nf(-2.5)\n"
              "jax.vmap(f)(jnp.arange(3.))\n")
    file = "<learner13 number -2.5>"
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    start = compile_log.last_seq() + 1
    exec(compile(source, file, "exec"), {"jax": jxkernel, "jnp": jnp})
    (event,) = [e for e in compile_log.events_since(start)
                if (e.source or "").startswith(file) and e.changes]
    (change,) = event.changes
    assert "as in f(-2.5)" in change.fix
    assert change.snippet.split("    #")[0] == "jnp.asarray(-2.5, jnp.float32)"


def test_a_state_promoted_by_its_update_is_cast_back_saying_it_rounds():
    """m made bfloat16, given back float32 by `0.9 * m + 0.1 * g` (JAX 0.10.2: "* at m, now
    f32[3] and before bf16[3]"): read at `w, m = f(w, m, g)`, m is what update returned, so
    the cast goes back to the bfloat16 the learner made it (the _fixed program: one
    lowering), and says that it rounds the float32 values and how to keep them instead; it
    rounded them unsaid."""
    _, events = jx_events("optimizer_state_dtype_promotes", lines=True)
    (change,) = events[-1].changes
    assert change.snippet == "w, m = f(w, jnp.asarray(m, jnp.bfloat16), jnp.ones(3))    # line 7"
    assert "m in f(w, m, jnp.ones(3)) (line 7) is what update gave back for it" in change.fix
    assert "The cast below rounds its values to bfloat16, the dtype it started as (to keep " \
        "float32, start it as float32 instead)." in change.fix, change.fix
