"""jax.device_put of a traced value without a target: the identity under jit, grad, jvp and
vmap, as JAX's device_put primitive is (found by JAX 0.10.2's own
tests/lax_autodiff_test.py, testScatterGradSymbolicZeroUpdate, which differentiates
`jax.device_put(x).at[...].set(...)`). With a device named, the value is placed as JAX's
device_put_p places it (lax/transfer.py; recorded cases in tests/data/missing_names_cases.py).
Its src=, donate= and may_alias=: tests/data/device_put_flags_cases.py."""
import json

import device_put_flags_cases            # tests/data, on pytest's pythonpath
import numpy as np
import pytest
from backend_tier import devices_named_here

import jxkernel as jax
import jxkernel.numpy as jnp
import locations  # tests/support


def test_device_put_without_target_is_identity_under_transformations():
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: jax.device_put(v) * 2)(x)), x * 2)
    assert float(jax.grad(lambda v: jax.device_put(v) ** 2)(3.0)) == 6.0
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda v: jax.device_put(v) + 1)(x)), x + 1)
    # the test of JAX's that found it: a symbolic-zero update's derivative through a scatter
    f = lambda v: jax.device_put(v).at[np.diag_indices(3)].set(np.arange(3.0, dtype=np.float32))
    _, tangent = jax.jvp(f, (jnp.ones((3, 3)),), (jnp.ones((3, 3)),))
    np.testing.assert_array_equal(np.asarray(tangent), 1 - np.eye(3, dtype=np.float32))


def test_device_put_of_a_traced_value_to_a_device_runs_as_in_jax():
    # (it was refused here until device_put_p; JAX runs it: identity on one CPU device)
    out = jax.jit(lambda v: jax.device_put(v, jax.devices()[0]) * 2)(np.ones(2, np.float32))
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    assert str(jax.typeof(out)) == "float32[2]"


def test_jnp_device_argument_of_a_traced_value_binds_device_put():
    """jnp's `device=` under jit (fftfreq of a traced spacing, arange scaled after): JAX's
    jnp calls jax.device_put, which binds device_put_p; found by JAX's own fft tests."""
    dev = jax.devices()[0]
    out = jax.jit(lambda d: jnp.fft.fftfreq(4, d=d, device=dev))(1.0)
    np.testing.assert_array_equal(np.asarray(out), np.fft.fftfreq(4, d=1.0).astype(np.float32))
    jaxpr = jax.make_jaxpr(lambda d: jnp.fft.fftfreq(4, d=d, device=dev))(1.0)
    assert "device_put" in str(jaxpr)


def test_device_put_takes_src_donate_and_may_alias_as_jax():
    """src= (where the value is: recorded in the equation, its transpose's target), donate=
    and may_alias= (bools or pytree prefixes of them), and no copy=, against JAX 0.10.2's
    answers in tests/data/device_put_flags_reference.json."""
    want = locations.jax_answers("device_put_flags_reference.json")
    assert device_put_flags_cases.run(jax) == devices_named_here(want)
