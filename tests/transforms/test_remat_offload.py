"""Checkpoint policies answering Recompute, Saveable or Offloadable(src, dst) instead of a
bool, against what JAX 0.10.2 answered (tests/data/remat_offload_cases.py, recorded by
reference/make_remat_offload_reference.py): the gradients, and where an Offloadable residual
lives: put in host memory after the forward pass (`f32<host>`), back on the device where the
backward pass reads it."""
import functools
import re

import numpy as np
import pytest

import jxkernel
import remat_offload_cases as cases
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("remat_offload_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
ours = functools.cache(lambda: cases.run(jxkernel))
# the class's module differs: JAX's is jax._src.interpreters.partial_eval
_CLASS = re.compile(r"<class '[\w.]+\.Offloadable'>")


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.endswith("grad")))
def test_gradient_as_jax(name):
    # sin, cos and a matrix product in float32: within 8 ulp of JAX's (rtol 1e-6)
    np.testing.assert_allclose(ours()[name], REFERENCE[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.startswith("error/")))
def test_error_as_jax(name):
    assert _CLASS.sub("<class Offloadable>", ours()[name]) == \
        _CLASS.sub("<class Offloadable>", REFERENCE[name])


def test_offloadable_repr():
    assert ours()["offloadable_repr"] == REFERENCE["offloadable_repr"]


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.endswith("jaxpr")))
def test_jaxpr_as_jax(name):
    """The offloaded residual put to MemorySpace.Host in the forward pass and typed so, put
    back to MemorySpace.Device inside the backward pass's remat2; the saved and offloaded
    residuals before the inputs, as JAX's staged jaxpr takes them."""
    assert ours()[name] == REFERENCE[name]


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.startswith("placements/")))
def test_offloaded_residuals_placed_as_jax(name):
    """Where the text differs from JAX's (linearize's order, a scan's closed_call, a cond's
    placeholders): the puts, the host types and what the backward pass takes."""
    assert ours()[name] == REFERENCE[name]


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.startswith("residuals/")))
def test_vjp_keeps_the_offloaded_residual_in_host_memory(name):
    assert ours()[name] == REFERENCE[name]


def test_lowered_module_names_the_memory_kinds():
    """The put is the identity on CPU (as JAX lowers it there), but the module's results
    carry `mhlo.memory_kind`, as a program moving values between memories."""
    assert ours()["offload_y/lowered"] == REFERENCE["offload_y/lowered"]
