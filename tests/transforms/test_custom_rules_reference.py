"""What JAX 0.10.2's own tests/custom_api_test.py found: the programs of
tests/data/custom_rules_cases.py against JAX's answers recorded in
tests/data/custom_rules_reference.json (reference/make_custom_rules_reference.py)."""
import json

import pytest

import jxkernel as jax
from custom_rules_cases import errors, seen, values
import locations  # tests/support: the repository's folders
from recorded_errors import error_head, leaves_record  # tests/data


def _reference():
    return locations.recorded("custom_rules_reference.json")


@pytest.mark.parametrize("name", sorted(errors(jax)))
def test_raises_jaxs_class_and_message(name):
    got = error_head(errors(jax)[name])
    assert got is not None and got == _reference()["errors"][name]


@pytest.mark.parametrize("name", sorted(values(jax)))
def test_values_are_jaxs_exactly(name):
    assert leaves_record(jax, values(jax)[name]()) == _reference()["values"][name]


@pytest.mark.parametrize("name", sorted(seen(jax)))
def test_rules_see_what_jaxs_see(name):
    assert json.loads(json.dumps(seen(jax)[name]())) == _reference()["seen"][name]
