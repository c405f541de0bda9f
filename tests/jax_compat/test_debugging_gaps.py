"""Gaps JAX 0.10.2's debugging test files showed (debugging_primitives_test.py,
debug_nans_test.py, errors_test.py), against JAX's recorded answers
(tests/data/debugging_gaps_cases.py, recorded by reference/make_debugging_gaps_reference.py)."""
import json
import traceback

import pytest
from debugging_gaps_cases import debug_nans, remat_debug_print, visualize_fake_devices

import fresh_process  # tests/support
import jxkernel as jax
import jxkernel.numpy as jnp
import locations  # tests/support: the repository's folders

REF = locations.jax_answers("debugging_gaps_reference.json")


def test_a_checkpoint_prints_again_where_its_policy_recomputes_the_print():
    assert remat_debug_print(jax) == REF["remat_debug_print"]


@pytest.mark.parametrize("case", sorted(REF["debug_nans"]))
def test_debug_nans_raises_jaxs_error_rerunning_what_made_the_nan(case):
    assert debug_nans(jax)[case] == REF["debug_nans"][case]


def test_visualize_sharding_draws_a_mesh_of_objects_standing_for_devices():
    assert visualize_fake_devices(jax) == REF["visualize_fake_devices"]


def test_host_callbacks_in_a_program_over_two_devices():
    mine, jaxs = fresh_process.run_against_reference(
        "import json, jxkernel as jax, debugging_gaps_cases as c\n"
        "print(json.dumps(c.on_two_devices(jax)))", "debugging_gaps_devices_reference.json",
        devices=2)
    assert mine == jaxs


def test_the_cause_of_an_error_in_a_transformed_equation_is_the_line_that_bound_it():
    """The FloatingPointError of grad's backward pass under jax_debug_nans has as cause the
    user's frames that bound the failing equation (JAX's JaxStackTraceBeforeTransformation).
    Here that equation is the jit, whose backward pass reran op by op raises its operation's
    error without a trace of its own: so the cause ends at the line calling grad, not inside
    `loss` (JAX 0.10.2's, as tests/data/first_nan_cases.py's grad_of_jit records)."""
    def loss(x):
        return jnp.sqrt(x) * x          # d/dx at 0: 0 * inf in the backward pass

    with jax.debug_nans(True), pytest.raises(FloatingPointError) as info:
        jax.grad(jax.jit(loss))(0.)
    cause = info.value.__cause__
    assert type(cause).__name__ == "JaxStackTraceBeforeTransformation"
    assert type(cause) is jax._src.source_info_util.JaxStackTraceBeforeTransformation
    frames = traceback.extract_tb(cause.__traceback__)
    assert frames[-1].filename == __file__
    assert frames[-1].line == "jax.grad(jax.jit(loss))(0.)"
    assert str(cause).startswith("FloatingPointError: invalid value (nan) encountered in ")


def test_runtime_tokens_hold_none_between_programs():
    """jxkernel threads an ordered effect's token inside its program only: the set JAX's
    tests clear between tests is empty, and clearing or waiting on it works."""
    tokens = jax._src.dispatch.runtime_tokens
    jax.jit(lambda x: jax.debug.print("{}", x, ordered=True))(1.)
    assert (tokens.current_tokens, tokens.output_runtime_tokens) == ({}, {})
    tokens.block_until_ready()
    tokens.clear()
