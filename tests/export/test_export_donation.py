"""jax.export of a jit with donated arguments for several platforms, against JAX 0.10.2's
answers (tests/data/export_donation_cases.py, recorded by
reference/make_export_donation_reference.py): with a donated argument, every platform or none
must support donation (JAX's NotImplementedError, its words), and an export for platforms
that all do is called with the argument. Results are float32 sines: compared within 1 ulp."""

import numpy as np
import pytest

import jxkernel
import export_donation_cases as cases  # tests/data
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("export_donation_reference.json")["cases"]


@pytest.fixture(scope="module")
def mine():
    return cases.run(jxkernel)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
@pytest.mark.parametrize("name", sorted(set(REFERENCE) - {"called"}))
def test_donation_rule_matches_jax(mine, name):
    assert mine[name] == REFERENCE[name]


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_export_with_donation_is_called(mine):
    got, want = np.float32(mine["called"]), np.float32(REFERENCE["called"])
    np.testing.assert_array_max_ulp(got, want, maxulp=1)
