"""Host data passed to a jit whose body constrains it, on 8 simulated CPU devices, against
JAX's recorded answers (tests/data/open_inputs_cases.py, reference/make_open_inputs_reference.py):
the parameter is left to XLA's propagation (no `sdy.sharding` on it), the compiled program
takes it laid out as the constraint says, a result passing it through is laid out so, and the
first call is one miss of the fast paths (`count_pjit_cpp_cache_miss`).
"""
import pytest
from fresh_process import cases_code, run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("open_inputs_cases"), "open_inputs_reference.json")


@pytest.mark.parametrize("key", ["lowered/main", "compiled/input_is_x", "first_call_misses",
                                 "passed/spec", "doubled/spec", "values", "again/specs",
                                 "plain/spec"])
def test_an_unsharded_input_is_laid_out_by_propagation_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]
