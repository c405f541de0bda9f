"""What JAX's own api_test.py found different (branch h-api), against JAX 0.10.2's recorded
answers (tests/data/api_file_gaps_cases.py, recorded by
reference/make_api_file_gaps_reference.py): jit's checks of what it wraps, its repr and
reference dropping, float0 operands, IntEnum constants, non-numeric NumPy data, and jax._src.test_util's
counters of device puts, jit calls past the fast paths and eager compiles."""
import warnings

import pytest

import jxkernel as jax
from jxkernel._jax import api_util
from jxkernel._jax._src import config, dispatch, test_util as jtu
from api_file_gaps_cases import cases, private, record
import locations  # tests/support: the repository's folders

REFERENCE = locations.recorded("api_file_gaps_reference.json")

CASES = {**cases(jax), **private(jax, jtu, api_util, config, dispatch)}


def test_every_case_is_recorded():
    assert set(CASES) == set(REFERENCE)


# what only XLA does: lowering (the jaxprs mlir.jaxpr_subcomp is handed, a lowering's
# override rules, a user's primitive with a lowering rule alone) and jaxlib's own device puts
XLA_ONLY = {"jaxprs_lowered_through_jaxpr_subcomp": "XLA text",
            "override_lowering_rules": "XLA text",
            "token_consuming_primitive_under_vjp": "XLA text",
            "jtu_count_internal_device_puts": "XLA compiler"}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xla_only(XLA_ONLY[n])) if n in XLA_ONLY else n
    for n in sorted(CASES)])
def test_case_answers_as_jax(name):
    # values: exact (bools, small integers, names); errors: the class and the whole message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert record(CASES[name]) == REFERENCE[name]
