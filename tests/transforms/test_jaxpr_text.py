"""`jax.make_jaxpr(f)(*args)` printed as JAX 0.10.2 prints it, for the programs a learner writes
(tests/data/jaxpr_text_cases.py; JAX's texts recorded by reference/make_jaxpr_text_reference.py
in tests/data/jaxpr_text_reference.json). A learner reading jxkernel's jaxpr next to JAX's docs
or a JAX session should see the same equations, names and parameters.

Every program either agrees exactly or is listed in KNOWN_DIFFERENT with why: the test fails
when a listed one starts agreeing (take it off the list) as when an agreeing one stops."""
import functools

import pytest

import jxkernel as jax
from jaxpr_text_cases import cases
import locations  # tests/support: the repository's folders

# name -> why jxkernel's text still differs from JAX 0.10.2's
KNOWN_DIFFERENT: dict = {
    # (none: jnp.linalg.solve's vecmat and grad of a scan agree since jit's trace forwards
    # identity broadcast_in_dim and convert_element_type as JAX's does)
}


def _reference():
    return locations.recorded("jaxpr_text_reference.json")


@functools.cache
def _cases() -> dict:
    """Built on first use: some programs' arguments (PRNG keys split) compile, which collection
    must not; the tests' names come from the recording (the first test checks the two agree)."""
    return cases(jax)


def test_every_program_was_recorded_and_every_difference_is_a_program():
    assert sorted(_cases()) == sorted(_reference())
    assert set(KNOWN_DIFFERENT) <= set(_cases())


@pytest.mark.parametrize("name", sorted(_reference()))
def test_jaxpr_text_is_jaxs(name):
    f, args = _cases()[name]
    got = str(jax.make_jaxpr(f)(*args))
    if name in KNOWN_DIFFERENT:
        assert got != _reference()[name], f"{name} now prints as JAX's: off KNOWN_DIFFERENT"
    else:
        assert got == _reference()[name]
