"""Meshes say which of their axes are of which type (are_all_axes_explicit/auto/manual,
explicit_axes/auto_axes/manual_axes), as JAX's Mesh and AbstractMesh do."""
import jxkernel
from jxkernel.sharding import AbstractMesh, AxisType


def test_axis_type_queries_on_abstract_and_concrete_meshes():
    m = AbstractMesh((2, 3, 1), ("a", "b", "c"),
                     (AxisType.Explicit, AxisType.Auto, AxisType.Explicit))
    assert (m.explicit_axes, m.auto_axes, m.manual_axes) == (("a", "c"), ("b",), ())
    assert not (m.are_all_axes_explicit or m.are_all_axes_auto or m.are_all_axes_manual)
    mesh = jxkernel.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,))
    assert mesh.are_all_axes_explicit and mesh.abstract_mesh.are_all_axes_explicit
    assert mesh.explicit_axes == ("x",) and not mesh.are_all_axes_auto
    empty = AbstractMesh((), ())
    assert not empty.are_all_axes_explicit and empty.auto_axes == ()
