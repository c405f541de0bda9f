"""Where a traced value reached a jnp argument that must be concrete, JAX's
ConcretizationTypeError says so on its second line, each function in its own words ("M
argument of jnp.hanning", "It arose in the jnp.arange argument 'stop'", "The error occurred
because of argument 'length' of jnp.bincount."): tests/data/concretization_context_cases.py,
recorded by reference/make_concretization_context_reference.py."""

import pytest

import jxkernel

import concretization_context_cases as cases   # tests/data, on pytest's pythonpath
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("concretization_context_reference.json")["cases"]
_OURS: dict = {}


def ours(name):
    if not _OURS:
        _OURS.update((k, v.replace(cases.__file__, "<cases>"))
                     for k, v in cases.run(jxkernel).items())
    return _OURS[name]


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_error_is_jax_s_whole_text(name):
    """JAX's class and whole text; a jnp function JAX jits with the argument static fails
    on hashing the tracer, in JAX's words too."""
    assert ours(name) == RECORDED[name]
