"""A jaxpr's effects on the Refs it reads and writes (ReadEffect, WriteEffect, AccumEffect:
RefEffects), none for a Ref made inside it, and an unused read dropped by DCE, as JAX 0.10.2's
(tests/data/ref_effects_cases.py, recorded by reference/make_ref_effects_reference.py)."""
import json
import os
import pathlib

import pytest

import jxkernel
import ref_effects_cases as cases
from jxkernel.api.state_primitives import ReadEffect, WriteEffect

REFERENCE = json.loads(pathlib.Path(os.path.join(os.path.dirname(__file__), "..", "data",
                                                 "ref_effects_reference.json")).read_text())
OURS = cases.run(jxkernel)


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k != "jax_version"))
def test_effects_as_jax(name):
    assert OURS[name] == REFERENCE[name]


def test_an_effect_names_the_jaxprs_input_by_position():
    # (JAX's names its Var: `Read<a>`; jxkernel's jaxprs keep positions, core/ir.py)
    def f(x, r):
        r[...] = x
    jaxpr = jxkernel.make_jaxpr(f)(1.0, jxkernel.new_ref(0.0))
    assert jaxpr.effects == {WriteEffect(1)}
    assert str(WriteEffect(1)) == "Write<1>" and ReadEffect(1) != WriteEffect(1)
