"""What JAX 0.10.2's own tests/custom_api_test.py found: the programs of
tests/data/custom_rules_cases.py against JAX's answers recorded in
tests/data/custom_rules_reference.json (reference/make_custom_rules_reference.py)."""
import json

import pytest

import jxkernel as jax
from custom_rules_cases import errors, seen, values
import locations  # tests/support: the repository's folders
from recorded_answers import errors_and_values_tests


def _reference():
    return locations.recorded("custom_rules_reference.json")


test_raises_jaxs_class_and_message, test_values_are_jaxs_exactly = \
    errors_and_values_tests(jax, errors, values, _reference)


@pytest.mark.parametrize("name", sorted(seen(jax)))
def test_rules_see_what_jaxs_see(name):
    assert json.loads(json.dumps(seen(jax)[name]())) == _reference()["seen"][name]
