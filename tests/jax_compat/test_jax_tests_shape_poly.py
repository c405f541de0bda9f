"""What JAX's shape-polymorphism and export test files (shape_poly_test.py and the export
compatibility files, conformance/jax_tests) import from JAX's private modules, against JAX
0.10.2's answers (tests/data/jax_tests_shape_poly_reference.json, recorded by
reference/make_jax_tests_shape_poly_reference.py from tests/data/jax_tests_shape_poly_cases.py):
core's dimension helpers (`stride_dim`, `dilate_dim`, `definitely_equal`, ...),
export.shape_poly's bounds, `state.discharge.run_state`, and the primitives the test harnesses
bind from `ad_util` and `dispatch`; and what DimExprTest asks of a symbolic dimension itself
(`_get_vars`, `_evaluate`, `_eq`, bounds by JAX's decision procedure, the errors of mixing scopes
and of comparisons under constraints), the order of the arithmetic an exported module
computes a size with, and JAX's UnexpectedDimVar for a symbolic size outside jax.export."""
import json

import pytest

import jxkernel
import backend_tier  # tests/support: which backend this run's programs run on
import locations  # tests/support: the repository's folders

from jax_tests_shape_poly_cases import EXPORTING, run   # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("jax_tests_shape_poly_reference.json")


@pytest.fixture(scope="module")
def ours():
    # (the facts that export, left out where they are skipped: jax.export is refused there)
    leave_out = EXPORTING if backend_tier.on_numpy_backend() else ()
    return json.loads(json.dumps(run(jxkernel, leave_out)))


@pytest.mark.parametrize("fact", [
    pytest.param(f, marks=pytest.mark.xla_only("XLA text")) if f in EXPORTING else f
    for f in sorted(set(JAX))])                 # (an exported module's StableHLO and sizes)
def test_as_jax(ours, fact):
    assert ours[fact] == JAX[fact]


def test_full_tracebacks_in_locations_takes_both_values():
    # JAX's default True (call-site locations); False, what export_back_compat_test.py sets,
    # each op's innermost line (tests/xla/test_source_locations.py checks both against JAX)
    assert jxkernel.config.jax_include_full_tracebacks_in_locations is True
    jxkernel.config.update("jax_include_full_tracebacks_in_locations", False)
    jxkernel.config.update("jax_include_full_tracebacks_in_locations", True)
