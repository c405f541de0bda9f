"""jxkernel.scipy.spatial.transform (Rotation, Slerp) against JAX's recorded results
(tests/data/spatial_transform_cases.py, recorded by
reference/make_spatial_transform_reference.py: every conversion, composition, mean, Slerp, and
their gradients and vmaps, in one jitted program per mode), against its own definitions, and
its errors against JAX's."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp
from recorded_modes import cases_test
from spatial_transform_cases import cases, ulps

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy
from jxkernel.scipy.spatial.transform import Rotation, Slerp

test_every_case_matches_jax = cases_test(cases, (jax, jxkernel.scipy),
                                         "spatial_transform_reference.npz", ulps)


def test_rotations_are_pytrees_through_jit_and_vmap():
    quats = jnp.array([[0., 0., 0., 1.], [1., 2., 3., 4.]])
    r = jax.jit(lambda q: Rotation.from_quat(q))(quats)
    assert isinstance(r, Rotation) and r.quat.shape == (2, 4)
    slerp = Slerp.init(jnp.array([0., 1.]), r)
    leaves, tree = jax.tree_util.tree_flatten(slerp)
    assert [leaf.shape for leaf in leaves] == [(2,), (1,), (1, 4), (1, 3)]
    assert isinstance(jax.tree_util.tree_unflatten(tree, leaves), Slerp)
    # a Slerp passed into jit and called there: its arrays are the jit's arguments
    got = jax.jit(lambda s, t: s(t).quat)(slerp, jnp.array([0., 1.]))
    assert_allclose_ulp(np.asarray(got), np.asarray(r.quat / jnp.linalg.norm(r.quat, axis=-1,
                                                                             keepdims=True)), 8)
    batched = jax.vmap(lambda q: Rotation.from_quat(q).as_matrix())(quats)
    assert batched.shape == (2, 3, 3)


def test_single_and_stacked_rotations():
    one = Rotation.from_rotvec(jnp.array([0., 0., 1.]))
    many = Rotation.from_rotvec(jnp.ones((3, 3)))
    assert one.single and not many.single and len(many) == 3
    with pytest.raises(TypeError, match="Single rotation is not subscriptable."):
        one[0]
    with pytest.raises(TypeError, match=r"Single rotation has no len\(\)."):
        len(one)
    assert many[1].single and many[:2].quat.shape == (2, 4)
    # a rotation times its inverse is the identity
    ident = (many * many.inv()).as_matrix()
    assert_allclose_ulp(np.asarray(ident), np.broadcast_to(np.eye(3, dtype=np.float32),
                                                           (3, 3, 3)), 8, scale=1.0)


def test_bad_arguments_raise_jaxs_errors():
    with pytest.raises(ValueError, match="non-empty string of upto 3 characters, got xyzx"):
        Rotation.from_euler("xyzx", jnp.ones(4))
    with pytest.raises(ValueError, match=r"to be from \['x', 'y', 'z'\] or \['X', 'Y', 'Z'\], "
                                         "got xYz"):
        Rotation.from_euler("xYz", jnp.ones(3))
    with pytest.raises(ValueError, match="Expected consecutive axes to be different, got xxy"):
        Rotation.from_euler("xxy", jnp.ones(3))
    r = Rotation.from_rotvec(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="Expected 3 axes, got xy."):
        r.as_euler("xy")
    with pytest.raises(ValueError, match="Expected consecutive axes to be different, got zzx"):
        r.as_euler("zzx")
    with pytest.raises(ValueError, match=r"Expected `weights` to be 1 dimensional, got shape "
                                         r"\(2, 1\)."):
        r.mean(jnp.ones((2, 1)))
    with pytest.raises(ValueError, match="got 3 values and 2 rotations."):
        r.mean(jnp.ones(3))
    with pytest.raises(NotImplementedError):
        Rotation.random(jax.random.key(0))
    with pytest.raises(TypeError, match="`rotations` must be a `Rotation` instance."):
        Slerp.init(jnp.arange(2.), r.quat)
    with pytest.raises(ValueError, match="must be a sequence of at least 2 rotations."):
        Slerp.init(jnp.arange(1.), r[:1])
    with pytest.raises(ValueError, match="got 2 rotations and 3 timestamps."):
        Slerp.init(jnp.arange(3.), r)
    with pytest.raises(ValueError, match="1 dimensional array, got 2 dimensions."):
        Slerp.init(jnp.ones((2, 1)), r)
    with pytest.raises(ValueError, match="`times` must be at most 1-dimensional."):
        Slerp.init(jnp.arange(2.), r)(jnp.ones((2, 2)))


def test_docstring_examples():
    check_docstring_examples("jxkernel.scipy.spatial.transform", {"jnp": jnp, "jax": jax})
