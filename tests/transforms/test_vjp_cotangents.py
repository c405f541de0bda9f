"""A vjp function's checks of its cotangent, as JAX 0.10.2's (its answers recorded by
reference/make_vjp_cotangent_reference.py): an integer or bool output takes a cotangent of any
dtype of its shape (Flax's summary table calls `vjp_fn(out)` on a module returning 1), a float
output one of its own dtype; a wrong shape, dtype or structure is JAX's ValueError, in its
words."""
import functools
import pytest

import jxkernel as jax
import locations  # tests/support: the repository's folders
import vjp_cotangent_cases

JAX = locations.jax_answers("vjp_cotangent_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_mine = functools.cache(lambda: vjp_cotangent_cases.run(jax))


@pytest.mark.parametrize("case", sorted(JAX))
def test_each_cotangent_is_taken_or_refused_as_jax_does(case):
    assert _mine()[case] == JAX[case]
