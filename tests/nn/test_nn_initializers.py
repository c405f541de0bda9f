"""jxkernel.nn.initializers against JAX 0.10.2: the same key gives the same numbers (reference
arrays in tests/data/nn_reference.npz, made by reference/make_nn_reference.py; bit for bit, or
within the ulps tests/data/nn_cases.py gives beside a case whose floats depend on the CPU),
plus the properties the numbers should have and the errors JAX raises."""
import functools
import os

import numpy as np
import pytest
from compiled import jit_together

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import config
from jxkernel.nn import initializers as I

import nn_cases
from numerics import ELEMENTWISE, LAPACK, assert_allclose_ulp
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "nn_reference.npz"))


def namespace():
    return dict(jax=jax, jnp=jnp, nn=jax.nn, I=I, np=np, k=jax.random.key(42),
                k0=jax.random.PRNGKey(0), **nn_cases.inputs())


def _keys_traced(expr):
    """`expr` as a function of the keys k and k0."""
    return lambda k, k0: eval(expr, dict(namespace(), k=k, k0=k0))


@functools.cache
def _cases_jitted(x64):
    """Under jit, the cases of test_matches_jax with this x64 mode, compiled together
    (compiled.jit_together): one program instead of ~3 compiles a case eagerly. Eager
    initializers keep their own tests (test_statistics_and_defaults, ...)."""
    keys = [namespace()[name] for name in ("k", "k0")]
    with config.override("jax_enable_x64", x64):
        return jit_together(jax, {i: (_keys_traced(expr), keys)
                                  for i, (expr, case_x64, *_) in enumerate(nn_cases.INIT_CASES)
                                  if case_x64 == x64})


@pytest.mark.parametrize("i", range(len(nn_cases.INIT_CASES)),
                         ids=[c[0] for c in nn_cases.INIT_CASES])
def test_matches_jax(i):
    expr, x64, *tolerance = nn_cases.INIT_CASES[i]
    with config.override("jax_enable_x64", x64):
        leaves = jax.tree_util.tree_leaves(_cases_jitted(x64)[i])
    nn_cases.compare_with_reference(REF, f"init{i}", leaves, *tolerance)


def test_initializers_are_initializers_and_aliases_agree():
    for init in [I.zeros, I.ones, I.constant(1.0), I.uniform(), I.normal(), I.truncated_normal(),
                 I.glorot_uniform(), I.he_normal(), I.orthogonal(), I.delta_orthogonal()]:
        assert isinstance(init, I.Initializer)
    assert not isinstance(3, I.Initializer)
    assert I.xavier_uniform is I.glorot_uniform and I.xavier_normal is I.glorot_normal
    assert I.kaiming_uniform is I.he_uniform and I.kaiming_normal is I.he_normal
    assert jax.nn.initializers is I


def test_statistics_and_defaults():
    key = jax.random.key(0)
    w = np.asarray(I.he_normal()(key, (400, 300)))
    assert w.dtype == np.float32
    assert abs(w.std() - np.sqrt(2 / 400)) < 0.003       # truncation corrected: std is exact
    assert np.abs(w).max() < 2 * np.sqrt(2 / 400) / .87962566103423978
    u = np.asarray(I.glorot_uniform()(key, (200, 300)))
    limit = np.sqrt(3 / 250)
    assert u.min() >= -limit and u.max() < limit and abs(u.std() - np.sqrt(1 / 250)) < 0.002
    c = np.asarray(I.variance_scaling(1.0, "fan_in", "uniform")(key, (100, 50), jnp.complex64))
    assert c.dtype == np.complex64 and abs(np.mean(np.abs(c) ** 2) - 1 / 100) < 1e-3
    assert np.abs(c).max() <= np.sqrt(2 / 100) * (1 + 1e-6)          # a disk


def test_orthogonal_is_orthogonal():
    key = jax.random.key(3)
    w = np.asarray(I.orthogonal(scale=2.0)(key, (4, 6)), np.float64)
    # W W^T in float64, rounded once to float32, is scale^2 I within a QR's rounding, measured
    # at the scale of its rows (the zeros off the diagonal come from cancellation; worst seen
    # 2, AVX2)
    assert_allclose_ulp((w @ w.T).astype(np.float32), 4 * np.eye(4, dtype=np.float32), LAPACK,
                        scale=4.0)
    w = np.asarray(I.orthogonal(column_axis=0)(key, (3, 2, 4)), np.float64).reshape(3, 8)
    assert_allclose_ulp((w @ w.T).astype(np.float32), np.eye(3, dtype=np.float32), LAPACK,
                        scale=1.0)
    d = np.array(I.delta_orthogonal()(key, (3, 3, 2, 5)))
    centre = d[1, 1].astype(np.float64)
    assert_allclose_ulp((centre @ centre.T).astype(np.float32), np.eye(2, dtype=np.float32),
                        LAPACK, scale=1.0)
    d[1, 1] = 0
    assert not d.any()


# lecun_normal's truncated normal jitted (fused) and eagerly: 4 ulps apart on the GPU (run 6)
@pytest.mark.cpu_only("recorded CPU values")
def test_initializers_under_jit():
    init = I.lecun_normal()
    f = jax.jit(init, static_argnums=(1, 2))
    # erf_inv's polynomial then a scale: at XLA's default level an FMA CPU contracts across
    # the fused program's ops, not across eager ones
    assert_allclose_ulp(f(jax.random.key(5), (3, 4), jnp.float32),
                        init(jax.random.key(5), (3, 4), jnp.float32), ELEMENTWISE)


@pytest.mark.parametrize("make, args, match", [
    (lambda: I.variance_scaling(1.0, "fan_sideways", "normal"), ((3, 4),), "invalid mode"),
    (lambda: I.variance_scaling(1.0, "fan_in", "cauchy"), ((3, 4),), "invalid distribution"),
    (lambda: I.glorot_uniform(), ((5,),), "1-dimensional weights tensor with default in_axis"),
    (lambda: I.orthogonal(), ((5,),), "at least a 2D shape"),
    (lambda: I.delta_orthogonal(), ((3, 3),), "3D, 4D or 5D"),
    (lambda: I.delta_orthogonal(), ((3, 4, 2),), "fan_in` must be less or equal"),
])
def test_errors(make, args, match):
    with pytest.raises(ValueError, match=match):
        make()(jax.random.key(0), *args)


def test_out_sharding_lays_out_the_same_values():
    with pytest.raises(TypeError, match="only supports instances of `NamedSharding` or "
                                        "`PartitionSpec`"):
        I.orthogonal()(jax.random.key(0), (2, 2), out_sharding="x")
    mesh = jax.make_mesh((1,), ("x",))
    k = jax.random.key(0)
    for init in (I.glorot_uniform(), I.zeros):
        laid = init(k, (2, 3), out_sharding=jax.sharding.NamedSharding(mesh, jax.P("x")))
        assert str(jax.typeof(laid)) == "float32[2@x,3]"
        assert (np.asarray(laid) == np.asarray(init(k, (2, 3)))).all()
    untyped = jax.typeof(jnp.ones((2, 3))).sharding      # as libraries pass it on
    assert (np.asarray(I.lecun_normal()(k, (2, 3), out_sharding=untyped)) ==
            np.asarray(I.lecun_normal()(k, (2, 3)))).all()
