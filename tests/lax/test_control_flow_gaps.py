"""What JAX 0.10.2's own tests/lax_control_flow_test.py and tests/batching_test.py found:
the programs of tests/data/control_flow_gaps_cases.py against JAX's answers recorded in
tests/data/control_flow_gaps_reference.json (reference/make_control_flow_gaps_reference.py)."""

import numpy as np
import pytest

import jxkernel as jax
from control_flow_gaps_cases import counts, errors, lapack_values, values
from numerics import LAPACK, assert_allclose_ulp
import locations  # tests/support: the repository's folders
from recorded_answers import errors_and_values_tests


def _reference():
    return locations.recorded("control_flow_gaps_reference.json")


test_raises_jaxs_class_and_message, test_values_are_jaxs_exactly = \
    errors_and_values_tests(jax, errors, values, _reference)


@pytest.mark.parametrize("name", sorted(lapack_values(jax)))
def test_lapack_values_are_jaxs_within_lapack_ulps(name):
    got = jax.tree_util.tree_leaves(lapack_values(jax)[name]())
    expected = _reference()["lapack_values"][name]
    assert [[np.asarray(x).dtype.name, list(np.shape(x))] for x in got] == \
        [leaf[:2] for leaf in expected]
    for x, (dtype, _, value) in zip(got, expected):
        assert_allclose_ulp(np.asarray(x), np.asarray(value, dtype), LAPACK)


@pytest.mark.parametrize("name", sorted(counts(jax)))
def test_counts_are_at_most_jaxs(name):
    assert counts(jax)[name]() <= _reference()["counts"][name]
