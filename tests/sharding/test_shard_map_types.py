"""The types of values in a shard_map body and the collectives that change them, against
JAX 0.10.2's answers for the same cases (tests/data/shard_map_types_cases.py, recorded by
reference/make_shard_map_types_reference.py on 8 CPU devices): `all_gather(...,
to='invarying')`'s type, values and gradient, ... Every value is exact (small
integer-valued floats, text)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from backend_tier import devices_named_here

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "shard_map_types_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("shard_map_types_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize("case", sorted(locations.jax_answers(_REFERENCE)["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    want = devices_named_here(ref[case])   # recorded on XLA's CPU
    if isinstance(want, list) and len(want) == 2 and want[1] == "" and want[0] != "ok":
        # JAX raises this error class with no message; jxkernel's says what to change
        assert ours[case][0] == want[0] and ours[case][1]
    else:
        assert ours[case] == want
