"""Eager with_sharding_constraint to a NamedSharding over an AbstractMesh, as JAX's: placed on
the mesh set by set_mesh for a value not on devices yet, on the value's own mesh otherwise, and
JAX's errors when neither applies (Flax shards variables this way at creation)."""
import numpy as np
import pytest

import jxkernel as jax
from jxkernel.sharding import AxisType, NamedSharding, PartitionSpec as P


def test_abstract_mesh_sharding_is_placed_on_a_concrete_mesh():
    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Auto,))
    target = NamedSharding(mesh.abstract_mesh, P("x"))
    with jax.set_mesh(mesh):       # (on one device the result may report a single device)
        y = jax.lax.with_sharding_constraint(np.arange(4.0, dtype=np.float32), target)
    assert y.shape == (4,) and y.sharding.spec == P("x")
    assert set(y.sharding.device_set) == set(mesh.devices.flat)
    with pytest.raises(ValueError, match="requires the input passed should be a `jax.Array`"):
        jax.lax.with_sharding_constraint(np.arange(4.0, dtype=np.float32), target)


def test_an_array_on_one_device_takes_the_mesh_set():
    mesh = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Auto,))
    target = NamedSharding(mesh.abstract_mesh, P(None, "x"))
    with jax.set_mesh(mesh):
        y = jax.lax.with_sharding_constraint(jax.numpy.ones((2, 3)), target)
    assert y.shape == (2, 3) and set(y.sharding.device_set) == set(mesh.devices.flat)
