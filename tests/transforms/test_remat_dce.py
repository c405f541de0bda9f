"""checkpoint and dead-code elimination against JAX 0.10.2's recorded answers
(tests/data/remat_dce_cases.py, recorded by reference/make_remat_dce_reference.py):
`saved_residuals` lists what JAX's does (a checkpoint's staged part takes only the inputs it
reads; a linearization's dead tangent code keeps no residual), `pe.dce_jaxpr` prunes cond
branches, scan bodies (carries to a fixed point) and custom_jvp/vjp calls as JAX's dce rules
do, a checkpoint of a cond recomputes no primal `sin`, and custom_vjp's optimize_remat runs
the primal function where fwd's residuals go unread; a per-input prevent_cse bars only
the flagged inputs; `pretty_print(name_stack=True)`, the residual log, JAX's private
`core.call`, and vjp's cotangent dtypes (none cast back) are JAX's."""
import functools

import locations  # tests/support: the repository's folders
import numpy as np
import pytest
import remat_dce_cases as cases

import jxkernel


def _reference() -> dict:
    return locations.recorded("remat_dce_reference.json")


@functools.cache
def _ours() -> dict:
    return cases.run(jxkernel)


@pytest.mark.parametrize("part", ["residuals", "dce", "counts", "name_stacks", "residual_log",
                                  "cotangent_dtypes",
                                  pytest.param("barriers", marks=pytest.mark.xla_only("XLA text"))])
def test_matches_jax_exactly(part):
    # lists of names, flags and counts: exactness is the contract
    assert _ours()[part] == _reference()[part]


@pytest.mark.parametrize("name", ["remat_value_and_grad", "plain_value_and_grad", "vmap"])
def test_optimize_remat_values_match_jax(name):
    # tan, sin and cos of float32 arguments, squared or multiplied once: within 4 ulp
    got, want = _ours()["optimize_remat"][name], _reference()["optimize_remat"][name]
    np.testing.assert_array_max_ulp(np.float32(got), np.float32(want), maxulp=4)


@pytest.mark.parametrize("name", ["eager", "closing_over_a_tracer", "grad_under_checkpoint"])
def test_core_call_matches_jax(name):
    # x + 1, y * 3 exact; cos(sin(x)) * cos(x) of float32 within 4 ulp
    got, want = _ours()["call"][name], _reference()["call"][name]
    np.testing.assert_array_max_ulp(np.float32(got), np.float32(want), maxulp=4)
