"""float0 values (an integer's tangent, holding nothing) into and out of jit and pmap, and
`jnp.array(..., dtype=float0)` and `device_put` of them, as JAX 0.10.2 has them
(tests/data/jax_test_leftovers_cases.py, recorded by
reference/make_jax_test_leftovers_reference.py): zeros on the host, never a device Array; a
program takes and gives them as false bools (`tensor<3xi1>`), as JAX lowers them."""
import functools

import pytest

import jxkernel as jax
import jax_test_leftovers_cases  # tests/data
import locations  # tests/support

JAX = locations.jax_answers("jax_test_leftovers_reference.json")["float0"]
_mine = functools.cache(lambda: jax_test_leftovers_cases.float0(jax))


@pytest.mark.parametrize("case", sorted(JAX))
def test_float0_as_jax_has_it(case):
    assert _mine()[case] == JAX[case]
