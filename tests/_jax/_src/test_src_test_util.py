"""jax._src.test_util's create_mesh (JAX's gradient-checkpointing guide imports the module)
and the gradient checks it shares with jxkernel.test_util."""
import unittest

import pytest

import jxkernel
import jxkernel.test_util
from jxkernel._src import test_util as jtu


def test_create_mesh_and_skip_when_too_few_devices():
    mesh = jtu.create_mesh((1,), ("x",))
    assert dict(mesh.shape) == {"x": 1}
    assert mesh.axis_types == (jxkernel.sharding.AxisType.Auto,)
    assert jtu.create_mesh((1,), ("x",), iota_order=True).devices.tolist() == \
        [jxkernel.devices()[0]]
    with pytest.raises(unittest.SkipTest, match="requires 64 global devices"):
        jtu.create_mesh((8, 8), ("x", "y"))
    assert jtu.check_grads is jxkernel.test_util.check_grads


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel._src.test_util")
