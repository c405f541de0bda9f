"""jit traces the user's function as many times as JAX 0.10.2 does on the paths a learner
meets (a `print` in it prints as often): tests/data/jit_trace_count_cases.py, JAX's answers in
tests/data/jit_trace_count_reference.json (reference/make_jit_trace_count_reference.py)."""
import json
import os

import jit_trace_count_cases as cases   # tests/data, on pytest's pythonpath
import pytest
from locations import DATA              # tests/support: the repository's folders

import jxkernel

with open(os.path.join(DATA, "jit_trace_count_reference.json")) as f:
    REFERENCE = json.load(f)

RESULTS = {}


def results():
    if not RESULTS:
        RESULTS.update(cases.run(jxkernel))
    return RESULTS


# JAX's make_jaxpr is jit(f).trace, so a jit(f) call after it reuses its trace; here
# make_jaxpr keeps its own traces (a second make_jaxpr(f)(x) reuses them) apart from jit's
DIFFERENT = {"make_jaxpr_then_jit": "make_jaxpr's traces are not jit's (a jit after it "
                                    "traces again)"}


@pytest.mark.parametrize("name", [
    pytest.param(k, marks=pytest.mark.xfail(reason=DIFFERENT[k], strict=True))
    if k in DIFFERENT else k for k in sorted(REFERENCE) if k != "jax_version"])
def test_as_jax(name):
    assert results()[name] == REFERENCE[name]


def test_every_case_recorded():
    assert sorted(results()) == sorted(k for k in REFERENCE if k != "jax_version")
