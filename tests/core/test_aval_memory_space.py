"""An aval's memory space (`ShapedArray(..., memory_space=jax.memory.Space.Host)`, JAX's
`aval.memory_space`) as JAX 0.10.2 has it (tests/data/jax_test_leftovers_cases.py, recorded by
reference/make_jax_test_leftovers_reference.py): 'f32<host>[8]' in its texts, part of
equality, kept by `update` and the tangent and cotangent types; Device by default, where
jxkernel's own arrays live."""
import functools

import pytest

import jxkernel as jax
import jax_test_leftovers_cases  # tests/data
import locations  # tests/support

JAX = locations.jax_answers("jax_test_leftovers_reference.json")["memory_space"]
_mine = functools.cache(lambda: jax_test_leftovers_cases.memory_space(jax))


@pytest.mark.parametrize("what", sorted(JAX))
def test_memory_space_as_jax_has_it(what):
    assert _mine()[what] == JAX[what]
