"""An error raised in a custom_vjp's bwd, under grad, jit of grad, vjp, grad of jit and vmap of
grad, has JAX 0.10.2's cause: a JaxStackTraceBeforeTransformation with JAX's message whose
traceback is the user's frames that called the custom_vjp function
(tests/data/custom_vjp_bwd_cause_cases.py, reference/make_custom_vjp_bwd_cause_reference.py;
the suite runs with JAX_TRACEBACK_FILTERING=off, as the reference was recorded)."""

import pytest
import locations  # tests/support: the repository's folders

import jxkernel as jax
from custom_vjp_bwd_cause_cases import run  # tests/data

JAX = locations.jax_answers("custom_vjp_bwd_cause_reference.json")["cases"]

OURS = {}


@pytest.mark.parametrize("case", sorted(JAX))
def test_bwd_error_has_jaxs_cause(case):
    if not OURS:
        OURS.update(run(jax))
    assert OURS[case] == JAX[case]
