"""jax.experimental.mesh_utils: device meshes in a logical shape (create_device_mesh), and
hybrid meshes of per-granule blocks (create_hybrid_device_mesh), with their errors."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel
from jxkernel.experimental import mesh_utils


def test_docstring_examples():
    check_docstring_examples("jxkernel.experimental.mesh_utils")


def test_meshes_keep_the_devices_order_in_the_shape():
    devices = jxkernel.devices()
    n = len(devices)
    mesh = mesh_utils.create_device_mesh((1, n))
    assert mesh.shape == (1, n) and list(mesh.flat) == list(devices)
    hybrid = mesh_utils.create_hybrid_device_mesh((n, 1), (1, 1), process_is_granule=True)
    assert hybrid.shape == (n, 1) and list(hybrid.flat) == list(devices)
    assert isinstance(jxkernel.sharding.Mesh(mesh, ("a", "b")), jxkernel.sharding.Mesh)


def test_errors_name_the_shape():
    n = len(jxkernel.devices())
    with pytest.raises(ValueError, match=rf"Number of devices {n} must equal the product of "
                                         rf"mesh_shape \({n + 1},\)"):
        mesh_utils.create_device_mesh((n + 1,))
    with pytest.raises(ValueError, match="sequence of ints"):
        mesh_utils.create_device_mesh((1.5,))
    with pytest.raises(ValueError, match="Number of slices 1"):
        mesh_utils.create_hybrid_device_mesh((n,), (2,), process_is_granule=True)
