"""The sharding rules of operations on values typed over Explicit mesh axes, against JAX
0.10.2's answers for the same cases (tests/data/sharding_type_rules_cases.py, recorded by
reference/make_sharding_type_rules_reference.py on 8 CPU devices): each result's type and
values, and the ShardingTypeErrors (class and text) where a rule refuses. Every value is exact
(small integer-valued floats, integers, text)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "sharding_type_rules_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("sharding_type_rules_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize("case", sorted(locations.jax_answers(_REFERENCE)["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    assert ours[case] == ref[case]
