"""A traced value where a jnp function needs a static size, count or axis, and a tracer used
as a dict key: JAX 0.10.2's exception class and whole message
(tests/data/traced_shape_args_cases.py, recorded by
reference/make_traced_shape_args_reference.py). The cards they get:
tests/notebook/test_traced_shape_args_cards.py."""

import pytest

import jxkernel

import traced_shape_args_cases as cases        # tests/data, on pytest's pythonpath
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("traced_shape_args_reference.json")
JAX, FIXED = RECORDED["cases"], RECORDED["fixed"]
_OURS: dict = {}


def ours(case):
    if not _OURS:
        _OURS.update(cases.run(jxkernel))
    return _OURS[case]


def test_every_case_recorded():
    assert sorted(JAX) == sorted({**cases.CASES, **cases.VARIANTS})


@pytest.mark.parametrize("case", sorted({**cases.CASES, **cases.VARIANTS}))
def test_the_error_is_jax_s(case):
    """JAX's class and whole text: jnp.eye(n)'s TypeError on shapes (not a
    ConcretizationTypeError), jnp.roll's axis a ConcretizationTypeError (not "iteration over
    a 0-d array"), jnp.tile's counts the tile primitive's unhashable parameter, linspace's
    num and a reduction's axis in JAX's words, a dict key's "unhashable type" alone."""
    assert ours(case) == JAX[case]
