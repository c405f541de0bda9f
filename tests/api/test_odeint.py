"""jax.experimental.ode.odeint against JAX 0.10.2's recorded values
(reference/make_odeint_reference.py over tests/data/odeint_cases.py): solutions, pytree
states, hmax/mxstep, and gradients by the adjoint method."""
import os

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp
from odeint_cases import as_numpy, cases

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.experimental.ode import odeint
import locations  # tests/support: the repository's folders

DATA = locations.DATA

REFERENCE = np.load(os.path.join(DATA, "odeint_reference.npz"))
CASES = cases(jax, odeint)

# The same steps as JAX's, so solutions agree to rounding: the adaptive controller's
# accept/reject decisions depend on error estimates that differ by ulps, and each output is
# a quartic evaluated at a fraction of a step; gradients integrate a second ODE backwards.
# oscillator_mxstep: float32 steps whose sizes follow rounding, and an output extrapolated
# past the last step: code without FMA contraction (AVX-only CPUs, the suite's XLA setting)
# moves it by up to 478 ulps; a step more or less would move it by ~10,000.
# decay_pytree_adjoint: the backward ODE's ts_bar, 111 ulps at XLA's default level (the suite's
# level: under 64); a step more or less moves it by thousands.
ULPS = {"decay_pytree_adjoint": 192, "oscillator_mxstep": 1024}


@pytest.mark.parametrize("case", sorted(CASES))
def test_odeint_matches_jax(case):
    got = as_numpy(CASES[case]())
    want = {k.split("/", 1)[1]: REFERENCE[k] for k in REFERENCE if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for name in want:
        assert_allclose_ulp(got[name], want[name], ULPS[case], err_msg=f"{case}/{name}")


def test_odeint_bad_arguments_and_docstrings():
    decay = lambda y, t: -y
    with pytest.raises(TypeError, match="t must be an array of floats"):
        odeint(decay, 1.0, jnp.arange(3))
    with pytest.raises(TypeError, match="odeint \\*args must be arrays or scalars, but got abc"):
        odeint(lambda y, t, s: -y, 1.0, jnp.array([0., 1.]), "abc")
    check_docstring_examples("jxkernel.experimental.ode")
