"""lax.mul's `out_dtype` (jxkernel/lax/elementwise.py), JAX 0.10.2's mixed-precision multiply,
against JAX's recorded answers (tests/data/mul_out_dtype_cases.py, recorded by
reference/make_mul_out_dtype_reference.py), and its jaxpr and refusals."""
import numpy as np
import pytest
from mul_out_dtype_cases import cases, ulps
from recorded_modes import cases_test

import jxkernel as jax
from jxkernel import lax

test_every_case_matches_jax = cases_test(cases, (jax,), "mul_out_dtype_reference.npz", ulps)


def test_the_parameter_is_printed_only_when_given():
    # (the equation always has it, None by default, as JAX 0.10.2's: eqn_params_reference.json;
    # the given dtype kept as given, printed as JAX prints it)
    x, y = np.float16([1, 2]), np.float32([3, 4])
    closed = jax.make_jaxpr(lambda a, b: lax.mul(a, b, out_dtype=np.float32))(x, y)
    assert "mul[out_dtype=<class 'numpy.float32'>] a b" in str(closed)
    assert closed.eqns[0].params == {"out_dtype": np.float32}
    plain = jax.make_jaxpr(lax.mul)(y, y)
    assert "mul a b" in str(plain)
    assert plain.eqns[0].params == {"out_dtype": None}


def test_operands_of_different_dtypes_still_need_out_dtype():
    with pytest.raises(TypeError, match="lax.mul requires arguments to have the same dtypes"):
        lax.mul(np.float16([1, 2]), np.float32([3, 4]))
