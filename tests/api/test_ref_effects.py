"""A jaxpr's effects on the Refs it reads and writes (ReadEffect, WriteEffect, AccumEffect:
RefEffects), none for a Ref made inside it, and an unused read dropped by DCE, as JAX 0.10.2's
(tests/data/ref_effects_cases.py, recorded by reference/make_ref_effects_reference.py)."""
import json

import pytest

import jxkernel
import ref_effects_cases as cases
import locations  # tests/support

REFERENCE = locations.jax_answers("ref_effects_reference.json")
OURS = cases.run(jxkernel)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_effects_as_jax(name):
    assert OURS[name] == REFERENCE[name]

