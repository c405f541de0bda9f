"""The library-suite harness's own pieces (conformance/libraries), without running a library:
the counts it reads from conformance/README.md's tables, how it tallies a part's recorded
outcomes, how it merges a file's `-k` parts, and when a run matches the README; and the
command line JAX's test files' harness (conformance/jax_tests, built on these pieces) puts at
the top of each file's log."""
import os
import shlex

import locations  # tests/support: the repository's folders

from conformance.jax_tests import run as jax_tests_run
from conformance.libraries import compare, readme, run
from conformance.libraries.suites import LIBRARIES


def test_readme_cells_give_passed_skipped_failed():
    assert readme.parse_cell("310 (48 skipped; 309 before typed keys)") == \
        {"passed": 310, "skipped": 48, "failed": 0}
    assert readme.parse_cell("8 (1 failed)") == {"passed": 8, "skipped": 0, "failed": 1}
    # a first parenthesis that is history, not a count, adds nothing
    assert readme.parse_cell("100 (96 and 2 skipped before `h-extdt`)") == \
        {"passed": 100, "skipped": 0, "failed": 0}
    assert readme.parse_cell("66 (2026-11-25: 66 passed, in 4.1 minutes)")["passed"] == 66
    assert readme.parse_cell("—") is None


def test_every_library_has_its_version_and_table_rows():
    versions = {name: readme.version(lib) for name, lib in LIBRARIES.items()}
    assert versions == {"chex": "0.1.92", "optax": "0.2.8", "equinox": "0.13.8", "flax": "0.12.7"}
    rows = {name: readme.recorded(lib) for name, lib in LIBRARIES.items()}
    assert all(file.startswith("chex/") for file in rows["chex"])        # not Optax's rows
    assert all(file.startswith("optax/") for file in rows["optax"])
    assert rows["optax"]["optax/_src/alias_test.py"]["jax"] == {"passed": 569, "skipped": 60, "failed": 0}
    assert "test_while_loop.py" in rows["equinox"] and "nnx/transforms_test.py" in rows["flax"]
    # every file split in -k parts is a file of its table
    for name, lib in LIBRARIES.items():
        assert set(lib.parts) <= set(rows[name])


def test_tally_counts_one_verdict_per_test():
    rows = [{"nodeid": "t::a", "when": "call", "outcome": "passed"},
            {"nodeid": "t::b", "when": "call", "outcome": "failed", "message": "AssertionError"},
            {"nodeid": "t::c", "when": "setup", "outcome": "skipped"},
            {"nodeid": "t::d", "when": "call", "outcome": "passed"},
            {"nodeid": "t::d", "when": "teardown", "outcome": "failed", "message": "leak"},
            {"nodeid": "t::e", "subtest": True, "outcome": "failed"},
            {"nodeid": "t::e", "subtest": True, "outcome": "skipped"},
            {"nodeid": "t::e", "when": "call", "outcome": "passed"},
            {"collect_error": "u.py", "message": "ImportError: no module"}]
    counts = run.tally(rows)
    assert (counts["passed"], counts["failed"], counts["error"], counts["skipped"]) == (2, 1, 1, 1)
    assert (counts["subtests_failed"], counts["subtests_skipped"]) == (1, 1)
    assert set(counts["failures"]) == {"t::b", "t::d"}
    assert counts["collect_errors"][0]["nodeid"] == "u.py"


def _part(status, passed, failed=0):
    counts = run.tally([{"nodeid": f"p{i}", "when": "call", "outcome": "passed"} for i in range(passed)]
                       + [{"nodeid": f"f{i}", "when": "call", "outcome": "failed"} for i in range(failed)])
    return {"part": None, "status": status, "seconds": 1.5, "log": "", **counts}


def test_parts_sum_and_a_timeout_is_never_a_match():
    merged = run.merge_parts([_part("finished", 3), _part("finished", 2, failed=1)])
    assert (merged["passed"], merged["failed"], merged["status"], merged["seconds"]) == (5, 1, "finished", 3.0)
    assert compare.same({"passed": 5, "skipped": 0, "failed": 1}, merged)
    assert not compare.same({"passed": 5, "skipped": 0, "failed": 0}, {**merged, "passed": 4})
    # the README's skip counts are pytest's summary line's: skipped subtests included
    with_subtests = {**merged, "skipped": 2, "subtests_skipped": 1}
    assert compare.same({"passed": 5, "skipped": 3, "failed": 1}, with_subtests)
    assert compare.same({"passed": 5, "skipped": 2, "failed": 1}, with_subtests)
    assert not compare.same({"passed": 5, "skipped": 4, "failed": 1}, with_subtests)
    cut = run.merge_parts([_part("finished", 3), _part("timeout", 2)])
    assert cut["status"] == "timeout"
    assert not compare.same({"passed": 5, "skipped": 0, "failed": 0}, cut)
    assert "TIMEOUT" in run.describe(cut) and "so far" in run.describe(cut)


def test_constraints_hold_every_test_dependency_and_leave_jax_out():
    from conformance.libraries import environment
    with open(environment.CONSTRAINTS, encoding="utf-8") as f:
        held = dict(line.strip().split("==") for line in f if line.strip() and line[0] != "#")
    names = {name.lower() for name in held}
    assert {dep.lower() for dep in suites_dependencies()} <= names
    assert not names & {"jax", "jaxlib", *LIBRARIES}
    # both sides install under the same constraints
    for side in environment.SIDES:
        assert environment._requirements(side)[:2] == ["--constraint", environment.CONSTRAINTS]


def suites_dependencies():
    from conformance.libraries.suites import TEST_DEPENDENCIES
    return TEST_DEPENDENCIES


def test_a_jax_test_files_log_begins_with_the_command_that_runs_it_again():
    """conformance/README.md sends a newcomer from a failing test to its file's log; the log
    said pytest's output only, and the side's environment (jxkernel as `jax`, JAX's test
    support, this checkout first on the path) was the harness's to know."""
    words = shlex.split(jax_tests_run.rerun_line("jxkernel", "extend_test.py", 10))
    assert words[:4] == ["cd", ".jaxtests/src", "&&", "env"]
    env = dict(word.split("=", 1) for word in words[4:] if "=" in word and "/" not in word[:1])
    assert env["JXKERNEL_AS_JAX"] == "1" and env["JAX_PLATFORMS"] == "cpu"
    assert env["JAX_NUM_GENERATED_CASES"] == "10" and env["JAX_DISABLE_MOST_OPTIMIZATIONS"] == "1"
    assert env["PYTHONPATH"].split(os.pathsep)[0] == locations.ROOT    # this checkout's code
    assert "-p jax_test_support" in " ".join(words) and "libs_record" not in " ".join(words)
    assert words[-1] == "extend_test.py"
    jax_side = jax_tests_run.rerun_line("jax", "extend_test.py", 10)
    assert "JXKERNEL_AS_JAX" not in jax_side and "jax_test_support" not in jax_side
    assert "venv-jax" in jax_side
