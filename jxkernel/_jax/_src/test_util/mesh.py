"""create_mesh: a Mesh of the first devices for a test, skipping the test
(unittest.SkipTest) when there are too few devices.

    >>> dict(create_mesh((1,), ("x",)).shape)
    {'x': 1}
"""
import math
import unittest

import numpy as np

from .... import devices, make_mesh
from ....api.sharding import AxisType, Mesh


def create_mesh(mesh_shape, axis_names, iota_order=False, axis_types=None):
    """A Mesh of the first devices, `mesh_shape` over `axis_names` (as `jax.make_mesh`, or
    the devices in id order with `iota_order`); skips the test when there are too few."""
    size = math.prod(mesh_shape)
    found = devices()
    if len(found) < size:
        raise unittest.SkipTest(f"Test requires {size} global devices and found {len(found)}.")
    if iota_order:
        ordered = sorted(found, key=lambda d: d.id)
        return Mesh(np.array(ordered[:size]).reshape(mesh_shape), axis_names,
                    axis_types=axis_types)
    if axis_types is None:
        axis_types = (AxisType.Auto,) * len(mesh_shape)
    return make_mesh(mesh_shape, axis_names, axis_types)
