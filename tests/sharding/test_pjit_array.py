"""What JAX's tests/pjit_test.py and tests/array_test.py check of meshes, PartitionSpecs,
shardings and sharded arrays, against JAX 0.10.2's answers for the same cases
(tests/data/pjit_array_cases.py, recorded by reference/make_pjit_array_reference.py on 8 CPU
devices): identities, values and error texts (all exact)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from backend_tier import devices_named_here

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "pjit_array_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("pjit_array_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize("case", sorted(locations.jax_answers(_REFERENCE)["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    # recorded on XLA's CPU: its devices named as this run's backend names them
    assert ours[case] == devices_named_here(ref[case])
