"""Memory kinds on the CPU (JAX's host offloading): device_put to 'pinned_host' and
'unpinned_host' (a sharding's memory_kind, jax.memory.Space), the types and shardings of host
arrays, jit's results and lowered modules' memory-kind attributes, device_put to a memory
inside jit, the mixed-memory error, and a remat offload policy's gradients, against JAX
0.10.2's answers (tests/data/memory_kinds_reference.json, recorded by
reference/make_memory_kinds_reference.py from tests/data/memory_kinds_cases.py).

The gradients compared are exact: sums of products of powers of two, exact in float32."""
import re

import memory_kinds_cases            # tests/data, on pytest's pythonpath
import numpy as np
import pytest
from backend_tier import devices_named_here

import jxkernel as jax
import locations  # tests/support

WANT = devices_named_here(locations.jax_answers("memory_kinds_reference.json"))


@pytest.fixture(scope="module")
def got():
    return memory_kinds_cases.run(jax)


def test_devices_address_three_memories(got):
    for name in ("memory_kinds", "default_memory", "spaces", "put_bogus"):
        assert got[name] == WANT[name], name


@pytest.mark.parametrize("name", [
    "put_single_device", "put_single_pinned_host", "put_single_unpinned_host",
    "put_named_device", "put_named_pinned_host", "put_named_unpinned_host",
    "put_space_host", "put_space_device", "host_back_to_device", "put_numpy_to_host",
    "put_tree_to_host", "typeof_repr_host"])
def test_device_put_places_in_each_memory_kind(got, name):
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", [
    "put_space_host_of_mesh", "put_space_host_on_context_mesh",
    "put_space_device_on_context_mesh"])
def test_put_to_a_memory_space_is_named_from_its_layout(got, name):
    """A put to jax.memory.Space is a program in JAX: over a mesh of one device its result
    is P(), over set_mesh's mesh an uncommitted value's is that mesh's."""
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", [
    f"put_scalar_{where}_{kind}" for where in ("single", "named", "named_split")
    for kind in ("pinned_host", "unpinned_host")])
def test_scalars_put_in_host_memory(got, name):
    """A scalar is placed in host memory as an array is; its rank error names the sharding
    asked, memory kind included."""
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", ["host_plus_device", "host_plus_scalar", "host_times_host",
                                  "jit_host_plus_device"])
def test_operations_keep_one_memory_space(got, name):
    """A host array meets a device array in no operation (JAX's ValueError); host operands
    give a host result, a scalar operand is no constraint."""
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", [
    "jit_identity_host", "jit_double_host", "jit_out_device", "jit_out_host",
    "jit_in_shardings_host", "jit_put_to_device", "jit_out_single_host",
    "jit_out_single_host_tree", "jit_in_single_host_out_device", "jit_double_space_host",
    "single_host_plus_scalar", "jit_put_to_space_host", "jit_put_to_space_host_of_mesh",
    "jit_put_to_space_host_of_host"])
def test_jit_results_are_placed_as_in_jax(got, name):
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", ["jaxpr_put_to_device", "jaxpr_put_to_host",
                                  "jaxpr_put_to_space_host"])
def test_device_put_inside_jit_types_its_memory_space(got, name):
    assert got[name] == WANT[name]


def _placements(text: str) -> list:
    """The lines of device_put equations and host-typed values, variable names dropped."""
    return [re.sub(r"\b[a-z]+:", "", line.strip()) for line in text.splitlines()
            if "device_put" in line or "devices=" in line or "srcs=" in line or "<host>" in line]


def test_grad_sends_a_host_primals_cotangent_back_to_host(got):
    """The device_put equations of grad's jaxpr and what they type (the rest differs where
    JAX's grad casts its seed 1.0 with a `reshard` equation under a mesh, which jxkernel's
    does not write: not a memory-kind matter)."""
    assert _placements(got["jaxpr_grad_of_host"]) == _placements(WANT["jaxpr_grad_of_host"])


@pytest.mark.parametrize("name", ["grad_of_host", "scan_grad_of_host_xs",
                                  "offload_policy_grad"])
def test_gradients_of_host_arrays_return_to_host(got, name):
    """A host primal's cotangent is sent back to host memory (device_put's transpose), also
    through scan and a remat policy that offloads activations."""
    assert got[name] == WANT[name]


@pytest.mark.parametrize("name", sorted(WANT["lowered"]))
def test_lowered_modules_carry_memory_kinds(got, name):
    """`mhlo.memory_kind` on every argument and result once one is not 'device', and an
    `annotate_device_placement` call on a result out_shardings places."""
    assert got["lowered"][name] == WANT["lowered"][name]


def test_host_array_data_and_buffer_kind():
    """The buffer really is in that memory (PJRT's, or the NumPy backend's placement)."""
    from jxkernel.xla.memory_kinds import buffer_kind
    h = jax.device_put(np.arange(3.0, dtype=np.float32), jax.memory.Space.Host)
    assert buffer_kind(h._buf) == "pinned_host"
    np.testing.assert_array_equal(np.asarray(h), [0.0, 1.0, 2.0])
    back = jax.device_put(h, jax.devices()[0])
    assert buffer_kind(back._buf) == "device" and str(jax.typeof(back)) == "float32[3]"


def test_space_any_is_refused():
    with pytest.raises(ValueError, match="Space.Any"):
        jax.device_put(np.ones(2), jax.memory.Space.Any)
