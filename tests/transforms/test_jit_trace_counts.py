"""jit traces the user's function as many times as JAX 0.10.2 does on the paths a learner
meets (a `print` in it prints as often): tests/data/jit_trace_count_cases.py, JAX's answers in
tests/data/jit_trace_count_reference.json (reference/make_jit_trace_count_reference.py)."""
import json

import jit_trace_count_cases as cases   # tests/data, on pytest's pythonpath
import pytest

import jxkernel
import locations  # tests/support

REFERENCE = locations.jax_answers("jit_trace_count_reference.json")

RESULTS = {}


def results():
    if not RESULTS:
        RESULTS.update(cases.run(jxkernel))
    return RESULTS


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    assert results()[name] == REFERENCE[name]


def test_every_case_recorded():
    assert sorted(results()) == sorted(REFERENCE)
