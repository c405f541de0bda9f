"""%explain's cost totals (jxkernel/views/call_explanation.py, per-instruction estimates by
views/hlo_text.py) against XLA's cost analysis of the same programs compiled by JAX 0.10.2
(tests/data/explain_cost_cases.py; explain_cost_reference.json recorded by
reference/make_explain_cost_reference.py): the sums of the per-line flops, transcendentals
and bytes are JAX's `cost_analysis()` totals, exactly, and the module totals shown beside
them are JAX's too. The one difference is said under the counts: a cond's branches are each
counted on their lines, where XLA counts the costliest alone."""

import pytest

import compiled                                  # tests/support
import explain_cost_cases as cases              # tests/data
import locations                                 # tests/support

import jxkernel
from jxkernel.views.call_explanation import explain

# XLA's CPU compiler's HLO and numbers (the NumPy backend compiles nothing; a GPU's differ)
pytestmark = [pytest.mark.xla_only("XLA text"), pytest.mark.cpu_only("CPU text")]

JAX = locations.recorded("explain_cost_reference.json")["cost"]

_OURS = {"flops": "flops", "transcendentals": "transcendentals", "bytes": "bytes accessed"}


@pytest.fixture(scope="module")
def explained():
    """Compiled as a learner's are: XLA's default code and optimizations (the suite turns
    most off and uses loop emitters, whose cost model of a scatter is a loop's,
    tests/conftest.py; JAX's reference was recorded at the default)."""
    was = jxkernel.config.jax_disable_most_optimizations
    jxkernel.config.update("jax_disable_most_optimizations", False)
    try:
        with compiled.xla_default_code():
            return {name: explain(fn, *args)
                    for name, (fn, args) in cases.programs(jxkernel).items()}
    finally:
        jxkernel.config.update("jax_disable_most_optimizations", was)


def _totals(ex) -> dict:
    return {_OURS[k]: v for k, v in ex.estimated_totals.items() if v or _OURS[k] != "transcendentals"}


@pytest.mark.parametrize("name", sorted(set(JAX) - {"branch"}))
def test_the_per_line_sums_are_xlas_totals_as_jax_reports_them(explained, name):
    """Slices (columns, row, cumsum's), in-place updates (set_row, scatter_add), a scan's
    tuples: each counted as XLA counts its bytes (these three read and wrote whole operands
    before: columns' x[:, :3] was 8,576 bytes for XLA's 768)."""
    ex = explained[name]
    assert _totals(ex) == JAX[name]
    assert {k: ex.xla_cost[k] for k in JAX[name]} == JAX[name]


def test_a_conds_branches_are_each_counted_and_the_note_says_xla_counts_one(explained):
    ex = explained["branch"]
    ours, jax = _totals(ex), JAX["branch"]
    # sin and cos on f32[32,64]: both branches here, the costlier (either) in XLA's
    assert ours["transcendentals"] == 2 * jax["transcendentals"] == 4096
    assert {k: ex.xla_cost[k] for k in jax} == jax
    assert "Each branch of a cond is counted in full, on its lines, though one runs; XLA's " \
           "totals count the costliest branch alone (line " in ex.cost_method
    assert ex.cost_method.endswith(": 2 branches)")
    assert "cond" not in explained["mlp"].cost_method
