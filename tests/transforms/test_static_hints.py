"""Errors about static arguments against JAX 0.10.2's (tests/data/static_hints_reference.json,
recorded by reference/make_static_hints_reference.py from tests/data/static_hints_cases.py):
an unhashable static argument's ValueError is JAX's whole text (an Array's type written as
JAX's `jaxlib._jax.ArrayImpl`); a traced value used as a Python one is JAX's whole text too.
The advice is the notebook card's: static is offered only where the same run with the
argument static works."""
import re

import pytest

import jxkernel
from jxkernel.views import error_cards

import static_hints_cases as cases   # tests/data, on pytest's pythonpath
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("static_hints_reference.json")["cases"]
OURS = {}


def ours(name):
    if not OURS:
        OURS.update(cases.run(jxkernel))
        for fact in OURS.values():
            fact["text"] = fact["text"].replace(cases.__file__, "<cases>")
    return OURS[name]


UNHASHABLE = sorted(n for n, f in RECORDED.items() if f["error"] == "ValueError")
TRACED = sorted(cases.TRACED)


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(UNHASHABLE + TRACED)


@pytest.mark.parametrize("name", UNHASHABLE)
def test_an_unhashable_static_argument_is_jaxs_error(name):
    """JAX's whole text (its last line "TypeError: unhashable type: ...", then a newline),
    nothing added: the argument, its function and the advice are the notebook card's."""
    said, jax_said = ours(name), RECORDED[name]
    assert said["error"] == jax_said["error"] == "ValueError"
    assert said["text"] == jax_said["text"]


def test_an_arrays_type_reads_as_jaxs():
    assert "<class 'jaxlib._jax.ArrayImpl'>" in ours("array")["text"]
    assert "TypeError: unhashable type: 'jaxlib._jax.ArrayImpl'\n" in ours("array")["text"]
    assert "jxkernel" not in ours("array_by_name")["text"]


def raised(name):
    """What jxkernel raises for a TRACED case (cases.run keeps only its text)."""
    fun, value, wrap = cases.TRACED[name]
    cases.jnp = jxkernel.numpy
    with pytest.raises(Exception) as e:
        wrap(jxkernel, jxkernel.jit(fun))(cases._argument(jxkernel, value))
    return e.value


@pytest.mark.parametrize("name", TRACED)
def test_a_traced_value_used_as_a_python_one_is_jaxs_whole_error(name):
    """JAX's class and whole text: no hint in it (JAX 0.10.2 gives none under jit)."""
    said, jax_said = ours(name), RECORDED[name]
    assert (said["error"], said["text"]) == (jax_said["error"], jax_said["text"])


STATIC = re.compile(r"static_arg(nums|names)|--static")


@pytest.mark.parametrize("name", TRACED)
def test_the_card_offers_static_only_where_it_works(name):
    """The card's rewrite makes the argument static where JAX's run with it static works
    (a Python number), and never where that run fails (an Array, a value grad or an outer jit
    traces): its fix then keeps the value traced."""
    works = RECORDED[name]["static_works"]
    assert ours(name)["static_works"] == works
    card = error_cards.card_for(raised(name))
    assert card.kind in ("bool-conversion", "concretization"), card.kind
    assert bool(STATIC.search(card.rewrite)) == works, card.rewrite
    if card.kind == "bool-conversion":
        assert "jnp.where(cond, a, b)" in card.fix
        assert card.fix.endswith("Or make the argument static.") == works, card.fix
