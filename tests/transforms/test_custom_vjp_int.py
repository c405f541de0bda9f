"""A custom_vjp's integer output and input, as JAX 0.10.2 treats them: bwd receives float0 zeros
for the integer output's cotangent (not zeros of its int dtype), and whatever bwd returns for the
integer input is dropped unchecked, its cotangent float0 (tests/data/custom_vjp_int_cases.py,
reference/make_custom_vjp_int_reference.py)."""

import pytest
import locations  # tests/support: the repository's folders

import jxkernel as jax
from custom_vjp_int_cases import run  # tests/data

JAX = locations.jax_answers("custom_vjp_int_reference.json")["cases"]

OURS = {}


@pytest.mark.parametrize("case", sorted(JAX))
def test_integer_cotangents_as_jaxs(case):
    if not OURS:
        OURS.update(run(jax))
    assert OURS[case] == JAX[case]
