"""The types of values in a shard_map body and the collectives that change them, against
JAX 0.10.2's answers for the same cases (tests/data/shard_map_types_cases.py, recorded by
reference/make_shard_map_types_reference.py on 8 CPU devices): `all_gather(...,
to='invarying')`'s type, values and gradient, ... Every value is exact (small
integer-valued floats, text)."""
import pytest

from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from backend_tier import cases_marked, devices_named_here

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = "shard_map_types_reference.json"


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers(_REFERENCE)["cases"]
    # compiled as the test processes compile (their loop emitters): the same answers for
    # a third less of the child's CPU
    code = as_the_suite_compiles(cases_code("shard_map_types_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


# JAX's answer is twice the product: jit embeds the closed-over sharded a and b whole in the
# module (as jxkernel does on XLA), so each device computes the whole dot, which the
# `unreduced={"x"}` constraint then calls its summand, and the reshard sums both copies
# ([[24], [88]], where the product times 2 is [[12], [44]]). The NumPy backend computes the
# product from the operands' own blocks: XLA's summands of embedded constants, "sharded arrays"
_XLA_SUMMANDS = {"unreduced spec rewrite: reshard an unreduced argument first": "sharded arrays"}


@pytest.mark.parametrize("case", cases_marked(
    sorted(locations.jax_answers(_REFERENCE)["cases"]), _XLA_SUMMANDS))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    want = devices_named_here(ref[case])   # recorded on XLA's CPU
    if isinstance(want, list) and len(want) == 2 and want[1] == "" and want[0] != "ok":
        # JAX raises this error class with no message; jxkernel's says what to change
        assert ours[case][0] == want[0] and ours[case][1]
    else:
        assert ours[case] == want
