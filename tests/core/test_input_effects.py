"""A jaxpr's effects on its inputs (JaxprInputEffect) name the input's variable and follow it
through jit, cond, scan, while_loop, DCE and `partial_eval_jaxpr_custom`, as JAX 0.10.2's
(tests/data/input_effects_cases.py, recorded by reference/make_input_effects_reference.py)."""
import functools

import pytest

import jxkernel
import input_effects_cases as cases
import locations  # tests/support: the repository's folders and recordings
from jxkernel.api.state_primitives import WriteEffect

REFERENCE = locations.jax_answers("input_effects_reference.json")


@functools.cache
def ours() -> dict:
    # (run at the first test, not at import: its primitive stays out of the primitives
    # test_numpy_eval.py lists as it is collected)
    return cases.run(jxkernel)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_input_effects_as_jax(name):
    assert ours()[name] == REFERENCE[name]


def test_an_effect_names_the_jaxprs_input_variable():
    def f(x, r):
        r[...] = x
    jaxpr = jxkernel.make_jaxpr(f)(1.0, jxkernel.new_ref(0.0))
    assert jaxpr.effects == {WriteEffect(jaxpr.jaxpr.invars[1])}
    eqn, = [e for e in jaxpr.eqns if e.primitive.name == "swap"]
    assert WriteEffect(jaxpr.jaxpr.invars[1]) in eqn.effects
