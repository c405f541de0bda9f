"""One check for the tests that compare jxkernel's answers to a case list with JAX's recorded
ones, where `different` names the cases known to differ (each an xfail while it differs, and a
failure once it agrees, so that a fix shows up and its entry goes); and the two tests of a
case file's errors and values against its record.

    check_answer(mine, theirs, {}, "split")
    test_raises_jaxs_class_and_message, test_values_are_jaxs_exactly = \
        errors_and_values_tests(jax, errors, values, _reference)
"""
import re

import pytest
from recorded_errors import error_head, leaves_record  # tests/data

_FAMILIES = re.compile(r"(?<=subtypes of )[a-z]+(?:, [a-z]+)+")


def families_sorted(value):
    """`value` (text, or lists/dicts of it) with each "subtypes of a, b, c" list sorted. JAX
    joins a Python set of NumPy's abstract types there, ordered by the types' addresses: the
    order differs between NumPy builds and, on some, between processes (Python 3.12.1 with
    NumPy 2.5.5); it is the same for JAX and jxkernel in one process, which build the set
    alike, so a message recorded elsewhere is compared without it.

    >>> families_sorted(["subtypes of integer, bool, floating."])
    ['subtypes of bool, floating, integer.']
    """
    if isinstance(value, str):
        return _FAMILIES.sub(lambda m: ", ".join(sorted(m.group().split(", "))), value)
    if isinstance(value, (list, tuple)):
        return type(value)(families_sorted(v) for v in value)
    if isinstance(value, dict):
        return {k: families_sorted(v) for k, v in value.items()}
    return value


def check_answer(mine: dict, theirs: dict, different: dict, case: str) -> None:
    if case in different:
        same = families_sorted(mine[case]) == families_sorted(theirs[case])
        pytest.xfail(different[case]) if not same else \
            pytest.fail(f"{case} now matches JAX: delete its DIFFERENT entry")
    assert families_sorted(mine[case]) == families_sorted(theirs[case])


def errors_and_values_tests(jax, errors, values, reference) -> tuple:
    """The tests of a case file's `errors(jax)` and `values(jax)` (name -> a function of no
    arguments) against JAX's record, `reference()`'s "errors" and "values": each case raises
    JAX's exception class and the head of its message; each value's leaves are JAX's exactly
    (dtype, shape and value)."""
    @pytest.mark.parametrize("name", sorted(errors(jax)))
    def test_raises_jaxs_class_and_message(name):
        got = error_head(errors(jax)[name])
        assert got is not None and got == reference()["errors"][name]

    @pytest.mark.parametrize("name", sorted(values(jax)))
    def test_values_are_jaxs_exactly(name):
        assert leaves_record(jax, values(jax)[name]()) == reference()["values"][name]
    return test_raises_jaxs_class_and_message, test_values_are_jaxs_exactly
