"""create_mesh: a Mesh of the first devices for a test, skipping the test
(unittest.SkipTest) when there are too few devices; with_explicit_mesh: a test run under one.

    >>> dict(create_mesh((1,), ("x",)).shape)
    {'x': 1}
    >>> with_explicit_mesh((1,), ("x",))(lambda mesh: mesh.axis_types)()
    (Explicit,)
"""
import contextlib
import math
import unittest

import numpy as np

from .... import devices, local_devices, make_mesh
from ....api.sharding import AxisType, Mesh, set_mesh


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


def with_explicit_mesh(sizes, names, axis_types=None, iota_order=False):
    """A decorator running a test under `set_mesh` of create_mesh(sizes, names) (Explicit
    axes unless `axis_types` says), the mesh passed as the test's `mesh` argument."""
    axis_types = (AxisType.Explicit,) * len(names) if axis_types is None else axis_types

    def decorator(fn):
        # (not functools.wraps: pytest would read the wrapped test's `mesh` as a fixture)
        def with_mesh(*args, **kwargs):
            mesh = create_mesh(sizes, names, iota_order, axis_types=axis_types)
            with set_mesh(mesh):
                return fn(*args, **kwargs, mesh=mesh)
        return with_mesh
    return decorator


@contextlib.contextmanager
def with_mesh(named_shape):
    """A block (or, as a decorator, a test) inside `with mesh:` of a Mesh of the first local
    devices, `named_shape` a list of (axis name, size); skips the test when there are too
    few devices.

        >>> with with_mesh([("x", 1)]):
        ...     jax.sharding.get_abstract_mesh().axis_names
        ('x',)
    """
    names = tuple(name for name, _ in named_shape)
    shape = tuple(size for _, size in named_shape)
    size = math.prod(shape)
    found = local_devices()
    if len(found) < size:
        raise unittest.SkipTest(f"Test requires {size} local devices")
    with Mesh(np.array(found[:size]).reshape(shape), names):
        yield


def with_mesh_from_kwargs(f):
    """A test run inside with_mesh of its `mesh` keyword argument."""
    return lambda *args, **kwargs: with_mesh(kwargs["mesh"])(f)(*args, **kwargs)
