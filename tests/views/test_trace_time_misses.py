"""jax_explain_cache_misses's lines, step by step, where JAX 0.10.2 logs a miss at a line that
compiles nothing (eval_shape, `jit(f).trace(...)`, `.lower(...)`) or after jax.clear_caches() or
`f.clear_cache()`:
tests/data/trace_time_misses_cases.py, JAX's messages recorded per step by
reference/make_trace_time_misses_reference.py (tests/data/trace_time_misses_reference.json).
Each message is JAX's whole (the cases' file named "<cases>"), and what follows it is
jxkernel's own: indented lines under JAX's (a difference's `fix:` and its code)."""
import logging
import re

import pytest

import jxkernel

import trace_time_misses_cases as cases   # tests/data, on pytest's pythonpath
from logged import Steps, logged_steps      # tests/support
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("trace_time_misses_reference.json")["cases"]
ID = re.compile(r" id=(\d+)")

# the cases whose steps export (jax.export's StableHLO: refused on the NumPy backend)
EXPORTING = {"export_then_call", "call_then_export", "deserialized_export_calls"}
NAMES = [pytest.param(name, marks=pytest.mark.xla_only("XLA text")) if name in EXPORTING
         else name for name in sorted(cases.CASES)]


_LOGGED: dict = {}


def logged(name, lines=False):
    """[[step label, [message, ...]], ...] of case `name` run under jxkernel (`lines`: the
    jax_log_compiles lines instead), once per process (run again, its call sites would have
    traced a function already: JAX's "re-defined" hint)."""
    if name not in _LOGGED:
        _LOGGED[name] = _run(name)
    return _LOGGED[name][lines]


def _run(name):
    return logged_steps(jxkernel, cases, name)


def as_jax(ours: str, theirs: str) -> bool:
    """Whether `ours` is JAX's message `theirs` and then jxkernel's lines only: indented (a
    fix), or "(jxkernel: ...)" (a loop body traced inside lax.scan; the function's id, which
    changes from run to run, written " id=<id>" on both)."""
    ours = ID.sub(" id=<id>", ours)
    more = ours[len(theirs):]
    return ours.startswith(theirs) and (not more or more.startswith("\n") and all(
        line.startswith(("    ", "  (jxkernel: ")) for line in more[1:].split("\n")))


@pytest.mark.parametrize("name", NAMES)
def test_each_step_logs_what_jax_logs(name):
    ours, theirs = logged(name), RECORDED[name]["steps"]
    assert [label for label, _ in ours] == [label for label, _ in theirs]
    for (label, mine), (_, jax_says) in zip(ours, theirs):
        assert len(mine) == len(jax_says) and all(map(as_jax, mine, jax_says)), \
            (label, mine, jax_says)


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)


@pytest.mark.parametrize("name", NAMES)
def test_each_step_logs_jaxs_compile_lines(name):
    """jax_log_compiles's lines at each step, as JAX logs them: "Finished tracing f for jit"
    where it traces (eval_shape, .trace, .lower, each make_jaxpr) or a jit object first finds
    a trace another made (make_jaxpr's, eval_shape's, another jit's), "Compiling jit(f) with global shapes and
    types" and the MLIR conversion where it lowers (`.lower()`), XLA's compilation where it
    compiles; jxkernel's "Compiling" line writes the types its way and says why."""
    # (jxkernel's " (memory cache)": the same module text compiled before, its executable
    # reused, where JAX's XLA compiles it again: a second Exported's call)
    head = lambda line: line.partition(" with global shapes and types")[0].removesuffix(
        " (memory cache)")                                                    # noqa: E731
    ours, theirs = logged(name, lines=True), RECORDED[name]["log_compiles"]
    assert [[label, list(map(head, lines))] for label, lines in ours] == \
        [[label, list(map(head, lines))] for label, lines in theirs]


@pytest.mark.parametrize("name", NAMES)
def test_the_ids_name_one_function_where_jaxs_do(name):
    """JAX writes the id of the function object after "never seen function" (" id=140..."):
    a function whose caches were cleared is named by the same id again, as in JAX."""
    ids = [found for _, messages in logged(name) for text in messages
           for found in ID.findall(text)]
    assert [i for i, found in enumerate(ids) if found == ids[0]] == RECORDED[name]["same_ids"]



def test_a_first_compile_after_eval_shape_or_lower_is_no_recompile():
    """What eval_shape or .lower traced joins what later compiles are explained against (as
    JAX's tracing cache holds it), but compiled nothing: under the recompile guard the first
    compile is allowed, and a second one refused."""
    x3, x4 = cases.X3, cases.X4
    shaped, lowered = jxkernel.jit(lambda x: x * 7), jxkernel.jit(lambda x: x + 7)
    jxkernel.eval_shape(shaped, x3)
    lowered.lower(x3)
    with jxkernel.no_recompile():
        shaped(x3)                  # the trace eval_shape made, compiled now: a first compile
        lowered(x4)                 # another shape than .lower's: a first compile too
        with pytest.raises(jxkernel.errors.RecompileError):
            shaped(x4)


@pytest.mark.xla_only("XLA text")
def test_an_exported_called_again_is_told_by_equality_not_as_a_dropped_program():
    """An Exported's call compiles a program per Exported, as JAX's: one deserialized is
    equal to another from the same blob (its program reused, as JAX's "deserialize again"
    step compiles nothing), not to the export it came from (that one's VJP function is its
    own), nor to another export: compiled again, and said so, not as "the same signature
    compiled again (its cached executable was dropped ...)"."""
    def f(x):
        return x * 11
    exp = jxkernel.export.export(jxkernel.jit(f))(cases.X3)
    first, again = (jxkernel.export.deserialize(exp.serialize()) for _ in range(2))
    assert first == again and hash(first) == hash(again) and first != exp
    before = jxkernel.core.compile_record.last_seq()
    for exported in (exp, first, again):
        exported.call(cases.X3)
    reasons = [e.reason for e in jxkernel.core.compile_record.events_since(before + 1)
               if e.function == "call_exported (eager)"]
    assert reasons[1:] == ["exported: not equal to the value compiled before, though "
                           "written the same"], reasons



def test_a_views_own_traces_log_no_tracing_line():
    """The views' own traces of the user's function (the stepper's make_jaxpr,
    `explain`'s jit(f).trace) log no "Finished tracing f for jit": the user asked for a view,
    not a trace (JAX has no such view); the user's own make_jaxpr logs one each time, as
    JAX's, and so does the user's eval_shape of f."""
    from jxkernel.views.call_explanation import explain
    from jxkernel.views.stepper import step

    def f(x):
        return x * 13
    handler, logger = Steps(cases.__file__), logging.getLogger("jxkernel.compile_log")
    logger.addHandler(handler)
    try:
        with jxkernel.config.override("jax_log_compiles", True):
            handler.step("the user's")
            jxkernel.make_jaxpr(f)(cases.X3)
            jxkernel.make_jaxpr(f)(cases.X3)
            jxkernel.eval_shape(f, cases.X3)
            handler.step("the views'")
            step(f, cases.X3)
            explain(f, cases.X3)
    finally:
        logger.removeHandler(handler)
    assert handler.lines == [["the user's", ["Finished tracing f for jit in <s> sec"] * 3],
                             ["the views'", []]]
