"""A shape-polymorphic export called from a function exported over symbolic shapes, against
JAX 0.10.2 (tests/data/export_nested_calls_reference.json, recorded by
reference/make_export_nested_calls_reference.py from tests/data/export_nested_calls_cases.py):
the callee's dimension variables solved in the caller's dimensions and its checks decided when
the caller is exported (JAX's errors and words, a check that cannot be decided refused too),
the caller's result shape and `uses_global_constants`, and its call with concrete arguments
(exact values: a reshape and an addition of small integers in float32)."""
import json

import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from export_nested_calls_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.recorded("export_nested_calls_reference.json")["cases"]

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("case", sorted(JAX))
def test_nested_call_as_jax(ours, case):
    assert ours[case] == JAX[case]
