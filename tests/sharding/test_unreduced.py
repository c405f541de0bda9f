"""Unreduced and reduced mesh axes, against JAX 0.10.2's answers for the same cases
(tests/data/unreduced_cases.py, recorded by reference/make_unreduced_reference.py on 8 CPU
devices): a PartitionSpec's checks of its `unreduced`/`reduced` sets and its text, the type
an einsum with `out_sharding=P(..., unreduced={...})` gives (`i32[2,2]{U:x}`), each device's
summand, the reshard that sums them, `add` of two unreduced values, and the
ShardingTypeErrors of dot_general, add and mul a learner meets. Every value is exact
(integers, small integer-valued floats, text)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from backend_tier import cases_marked, devices_named_here

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "unreduced_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("unreduced_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


# The summands XLA's partitioner leaves on each device for an unreduced result computed inside
# a jitted program (the totals agree on the NumPy backend, which keeps the whole value on
# device 0, as it does for any result it has no summands of: "sharded arrays")
_XLA_SUMMANDS = {"einsum summands": "sharded arrays", "reduce_sum scalar": "sharded arrays",
                 "grad through reshard of reduced": "sharded arrays"}


@pytest.mark.parametrize("case", cases_marked(
    sorted(locations.jax_answers(_REFERENCE)["cases"]), _XLA_SUMMANDS))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    # recorded on XLA's CPU: its devices named as this run's backend names them
    assert ours[case] == devices_named_here(ref[case])
