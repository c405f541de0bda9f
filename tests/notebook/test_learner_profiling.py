"""A learner measuring and profiling JAX code (tests/data/learner_profiling_cases.py) against
what JAX 0.10.2 said for the same programs (tests/data/learner_profiling_reference.json,
recorded by reference/make_learner_profiling_reference.py): `%explain`'s per-line counts sit
on the lines JAX's locations name, and the XLA cost and memory analyses it and
`Compiled.cost_analysis()` / `memory_analysis()` show are XLA's numbers for the same program,
exactly. (What %timeit says is in test_notebook_magics.py; no timings are asserted.)"""
import inspect
import os

import pytest

import jxkernel
import jxkernel.numpy as jnp
import learner_profiling_cases as cases          # tests/data
import locations                                 # tests/support
from jxkernel.views.call_explanation import explain

# XLA's CPU compiler's numbers and HLO (the NumPy backend compiles nothing; a GPU's differ)
pytestmark = [pytest.mark.xla_only("XLA text"), pytest.mark.cpu_only("CPU text")]

JAX = locations.jax_answers("learner_profiling_reference.json")

PROGRAMS = ("bench", "h", "scanned")


def _body_lines(*functions) -> set:
    lines = set()
    for fn in functions:
        source, first = inspect.getsourcelines(fn)
        lines.update(range(first, first + len(source)))
    return lines


LEARNERS = _body_lines(cases.bench, cases.g, cases.h, cases.step, cases.scanned)
FIRST_CALLS = _body_lines(cases.first_calls)


@pytest.fixture(scope="module")
def answers():
    """`run(jxkernel)`: the same cells as the reference, igamma and scan lowered first by
    another call (first_calls), as a learner's earlier cell would."""
    return cases.run(jxkernel)


@pytest.mark.parametrize("name", PROGRAMS)
def test_xlas_cost_and_memory_analyses_are_jaxs(answers, name):
    assert answers[name]["cost"] == JAX[name]["cost"]
    assert answers[name]["memory"] == JAX[name]["memory"]


def test_donation_aliases_the_argument_and_deletes_it_as_jaxs():
    """`donate_argnums=0`: memory_analysis() counts the donated argument as aliased to the
    output (what a memory view can say it saves), and the argument is deleted after the call."""
    found = cases.run(jxkernel)
    for name in ("update_donated", "update_plain"):
        assert found[name] == JAX[name], name
    assert JAX["update_donated"]["memory"]["alias_size_in_bytes"] == 40000
    assert JAX["update_donated"]["deleted"] == [True, False]


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_learners_lines_the_locations_name_are_jaxs(answers, name):
    """Lowered.as_text(debug_info=True): the lines of the learner's functions its locations
    name. An igamma or a scan lowered first by another call (first_calls) put its ops on
    that call's line, in another function, before: a lowering rule's own equations are
    located at the equation it lowers, as JAX's are. (JAX also names the callers' lines,
    the lambdas and the .lower call, as call sites: jxkernel names the innermost line.)"""
    ours = set(answers[name]["lines"])
    assert not ours & FIRST_CALLS, ours
    assert ours & LEARNERS == set(JAX[name]["lines"]) & LEARNERS


def _lines(ex) -> dict:
    """{line of the cases file: LineCounts} of `ex`'s per-line counts."""
    out = {}
    for key, counts in ex.per_line.items():
        file, line = (ex.file, key) if isinstance(key, int) else key
        assert os.path.basename(file) == "learner_profiling_cases.py", key
        out[line] = counts
    return out


@pytest.mark.parametrize("name", PROGRAMS)
def test_explain_counts_sit_on_the_lines_jax_locates_the_ops_at(answers, name):
    """%explain's per-line counts (from the optimized HLO's source lines) only on lines JAX's
    locations name, never on the line of the call that first lowered an igamma or a scan;
    beside them XLA's totals for the module, JAX's numbers."""
    fun, args = cases.programs(jxkernel, jnp)[name]
    ex = explain(fun, *args)
    counted = {line for line, c in _lines(ex).items() if c.hlo_instructions}
    assert counted and counted <= set(JAX[name]["lines"]), (counted, JAX[name]["lines"])
    assert {k: ex.xla_cost[k] for k in JAX[name]["cost"]} == JAX[name]["cost"]


def test_explain_puts_igamma_on_its_line_and_the_scan_counter_on_the_scan():
    """h's igamma: its series' ops on `return jax.lax.igamma(y, x)`; scanned's loop counter
    and its test on the scan's line, the body's multiply and add on step's line, each counted
    once as XLA's cost analysis counts a loop's body (its 2,002 flops)."""
    programs = cases.programs(jxkernel, jnp)
    h = _lines(explain(*programs["h"][:1], *programs["h"][1]))
    igamma = inspect.getsourcelines(cases.h)[1] + 2
    assert h[igamma].flops > 0 and h[igamma].hlo_instructions > 0
    s = _lines(explain(*programs["scanned"][:1], *programs["scanned"][1]))
    scan = inspect.getsourcelines(cases.scanned)[1] + 1
    body = inspect.getsourcelines(cases.step)[1] + 1
    assert (s[body].flops, s[scan].flops) == (2000, 2)
    assert s[body].flops + s[scan].flops == JAX["scanned"]["cost"]["flops"]


def test_explain_says_a_loops_body_is_counted_once_and_how_often_it_runs():
    """XLA's cost analysis counts a while loop's body once (JAX's 2,002 flops for 100 steps of
    2,000): %explain's note under the counts says so, and names the scan's line and its 100
    iterations (XLA's known trip count; the scan is outside the explained lambda, so its file
    is named); a program without a loop gets no such note."""
    programs = cases.programs(jxkernel, jnp)
    fun, args = programs["scanned"]
    ex = explain(fun, *args)
    scan = inspect.getsourcelines(cases.scanned)[1] + 1
    note = (". A loop's body is counted once, here as in XLA's cost analysis, though it runs "
            f"once per iteration (learner_profiling_cases.py:{scan}: 100 iterations)")
    if ex.cost_from == "hlo":
        assert ex.cost_method.endswith(note), ex.cost_method
        assert ex._repr_mimebundle_()[ex.MIME]["cost"]["method"] == ex.cost_method
        assert f"py:{scan}: 100 iterations)." in repr(ex)    # the line outside the lambda
    assert "A loop's body" not in explain(*programs["bench"][:1], *programs["bench"][1]).cost_method
