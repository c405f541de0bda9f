"""A jaxpr's effects on the Refs it reads and writes (ReadEffect, WriteEffect, AccumEffect:
RefEffects), none for a Ref made inside it, and an unused read dropped by DCE, as JAX 0.10.2's
(tests/data/ref_effects_cases.py, recorded by reference/make_ref_effects_reference.py)."""
import json
import os
import pathlib

import pytest

import jxkernel
import ref_effects_cases as cases

REFERENCE = json.loads(pathlib.Path(os.path.join(os.path.dirname(__file__), "..", "data",
                                                 "ref_effects_reference.json")).read_text())
OURS = cases.run(jxkernel)


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k != "jax_version"))
def test_effects_as_jax(name):
    assert OURS[name] == REFERENCE[name]

