"""recorded_calls.py: a recorded call computes what the call computes, in one program."""
import numpy as np

import jxkernel
import jxkernel.numpy as jnp
import jxkernel.scipy.special as sp
from compiled import jit_together
from numerics import ELEMENTWISE, assert_allclose_ulp
from recorded_calls import recorder


def test_arrays_are_traced_in_order_and_nested_calls_run_in_the_same_program():
    ours = recorder(jnp)
    call = ours.subtract(ours.multiply(np.float32([3.0]), 2.0), np.float32([0.5]))
    assert [a.tolist() for a in call.arrays()] == [[3.0], [0.5]]
    got = jxkernel.jit(call)(*call.arrays())
    np.testing.assert_array_equal(np.asarray(got), np.float32([5.5]))


def test_other_arguments_stay_static():
    # multigammaln's d must be concrete: traced, it would raise
    call = recorder(jxkernel.scipy).special.multigammaln(np.float32([3.0, 5.5]), 2)
    got = jit_together(jxkernel, {"m": (call, call.arrays())})["m"]
    # lgamma inside another program (jit_together's): within ELEMENTWISE, not bit for bit
    assert_allclose_ulp(np.asarray(got),
                        np.asarray(jxkernel.jit(lambda a: sp.multigammaln(a, 2))(
                            np.float32([3.0, 5.5]))), ELEMENTWISE)
    weak = recorder(jnp).add(np.float32([1.0]), 2.0)
    assert jxkernel.jit(weak)(*weak.arrays()).dtype == np.float32    # 2.0 stays weak
