"""jit's static and donated arguments together, against JAX's recorded answers
(tests/data/jit_static_donate_cases.py, reference/make_jit_static_donate_reference.py): an
argument named both static and donated is JAX's ValueError; one only numbered so (a function
of *args, or without a signature) is static and not donated, as JAX's jit has it; pmap
refuses such argnums.
"""
import json
import warnings

import pytest

import jxkernel as jax
import locations  # tests/support
import jit_static_donate_cases

JAX = locations.jax_answers("jit_static_donate_reference.json")


@pytest.fixture(scope="module")
def mine():
    with warnings.catch_warnings():      # "Some donated buffers were not usable", as JAX's
        warnings.simplefilter("ignore", UserWarning)
        return jit_static_donate_cases.run(jax)


@pytest.mark.parametrize("key", sorted(JAX))
def test_static_and_donated_arguments_as_jax(mine, key):
    assert mine[key] == JAX[key]


def test_a_numbered_argument_both_static_and_donated_runs():
    g = jax.jit(jit_static_donate_cases.v, static_argnums=1, donate_argnums=1)
    assert g(jax.numpy.ones(2), 3.0).tolist() == [3.0, 3.0]
