"""error_check.wrap_for_export under jax.export, as JAX 0.10.2 (tests/data/
error_check_export_cases.py, reference/make_error_check_export_reference.py): the error state
made while the function traces is its own (the exported program returns two results, not the
state as a third: "func.return has 3 operands" before), its code at `result[1].error_code`, and
the result tree serializes, so the imported call raises the error with its traceback's text."""

import pytest
import locations  # tests/support: the repository's folders

import jxkernel as jax
from error_check_export_cases import run  # tests/data

JAX = locations.jax_answers("error_check_export_reference.json")["cases"]

OURS = {}


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
@pytest.mark.parametrize("case", sorted(JAX))
def test_wrap_for_export_exports_as_jax(case):
    if not OURS:
        OURS.update(run(jax))
    assert OURS[case] == JAX[case]
