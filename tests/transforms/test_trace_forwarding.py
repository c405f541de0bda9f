"""jit's trace forwards an operand where an equation would hand it back unchanged, as JAX
0.10.2's DynamicJaxprTrace does with its forwarding rules (a broadcast_in_dim to the operand's
own shape), while linear_transpose traces as JAX's partial evaluation does, keeping that
equation, whose transpose is a `reduce_sum[axes=()]` (jnp.linalg.solve's vecmat shows it).
The expected texts are JAX 0.10.2's `str(jax.make_jaxpr(...))`, recorded by hand."""
import numpy as np

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax

X = np.ones(3, np.float32)


def _identity_broadcast(x):
    return lax.broadcast_in_dim(x, (3,), (0,))


def test_identity_broadcast_in_dim_is_forwarded_by_jits_trace():
    assert str(jax.make_jaxpr(_identity_broadcast)(X)) == "{ lambda ; a:f32[3]. let  in (a,) }"
    assert str(jax.make_jaxpr(lambda x: _identity_broadcast(x) * 2)(X)) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"


def test_a_broadcast_that_changes_the_shape_is_still_staged():
    text = str(jax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)))(X))
    assert "broadcast_in_dim[broadcast_dimensions=(1,)] a" in text


def test_linear_transpose_keeps_the_identity_broadcast_and_transposes_it():
    f_t = jax.linear_transpose(_identity_broadcast, X)
    assert str(jax.make_jaxpr(f_t)(X)) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = reduce_sum[axes=() out_sharding=None] a\n"
        "  in (b,) }")
    np.testing.assert_array_equal(np.asarray(f_t(np.arange(3, dtype=np.float32))[0]),
                                  np.arange(3, dtype=np.float32))   # exact: a sum of one


def test_solve_still_solves_and_differentiates():
    a = np.array([[4., 1.], [2., 3.]], np.float32)
    b = np.array([1., 2.], np.float32)
    x = jnp.linalg.solve(a, b)
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(a, b), rtol=1e-6)  # ~8 ulp
    # d/db of sum(solve(a, b)) is solve(a.T, ones): the transpose solve through vecmat
    g = jax.grad(lambda b: jnp.linalg.solve(a, b).sum())(b)
    np.testing.assert_allclose(np.asarray(g), np.linalg.solve(a.T, np.ones(2)), rtol=1e-6)


def test_transposed_scan_carry_has_no_conversion_back_to_the_weak_primal_type():
    # the carry's transpose rules see its cotangent's (strong) type, as JAX's accumulators
    # carry it, so the weak carry's convert_element_type transposes to nothing
    def f(c):
        return lax.scan(lambda c, y: (c * y, None), c, jnp.arange(3.))[0]
    text = str(jax.make_jaxpr(jax.grad(f))(1.))
    assert "jaxpr={ lambda ; h:f32[] i:f32[]. let j:f32[] = mul h i in (j,) }" in text
    assert text.count("convert_element_type") == 1          # the forward body's only
    out = jax.grad(lambda c: lax.scan(lambda c, y: (c * y, None), c, jnp.arange(1., 4.))[0])(1.)
    assert float(out) == 6.0 and out.dtype == np.float32    # 1 * 2 * 3, exact
