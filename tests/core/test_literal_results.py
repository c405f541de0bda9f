"""A jaxpr whose output is one of its literals, run eagerly: JAX 0.10.2's eval_jaxpr gives the
literal's held value (a weak Python scalar as TypedFloat/TypedInt carrying its dtype), never
the Literal object (remat of `lambda: 1.0` gave `Literal(1.0)` to the learner). The types on
the right are what JAX 0.10.2 returned for the same calls."""
import numpy as np
import pytest

import jxkernel as jax
from jxkernel.core.literals import TypedFloat

CASES = {
    "remat_of_a_float": (lambda: jax.remat(lambda: 1.0)(), "TypedFloat"),
    "remat_of_an_int": (lambda: jax.remat(lambda: 1)(), "TypedInt"),
    "eval_jaxpr": (lambda: jax.core.eval_jaxpr(jax.make_jaxpr(lambda: 1.0)().jaxpr, [])[0],
                   "TypedFloat"),
    "closure_convert": (lambda: jax.closure_convert(lambda x: 1.0, 1.0)[0](1.0), "TypedFloat"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_literal_output_is_its_value_as_jax_holds_it(name):
    make, jax_type = CASES[name]
    out = make()
    assert type(out).__name__ == jax_type
    assert out == 1 and out.dtype == (np.float32 if jax_type == "TypedFloat" else np.int32)


def test_it_differentiates_and_binds_as_the_weak_scalar_it_was():
    out = jax.remat(lambda: 2.0)()
    assert isinstance(out, TypedFloat)
    assert (jax.numpy.ones(2, jax.numpy.bfloat16) * out).dtype == jax.numpy.bfloat16
