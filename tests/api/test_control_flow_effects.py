"""A library's effect refused in cond, switch, scan and while_loop bodies unless its type is
in `control_flow_allowed_effects`, with JAX 0.10.2's error (tests/data/
control_flow_effects_cases.py, recorded by reference/make_control_flow_effects_reference.py)."""
import functools
import json

import pytest

import jxkernel
import control_flow_effects_cases as cases
import locations  # tests/support

REFERENCE = locations.jax_answers("control_flow_effects_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
ours = functools.cache(lambda: cases.run(jxkernel))


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    assert ours()[name] == REFERENCE[name]
