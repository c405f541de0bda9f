# conformance: ulps=32
import jax.numpy as jnp
import jax.scipy.linalg as jsl

A = jnp.array([[4., 1., 0.], [1., 3., 1.], [0., 1., 2.]])
b = jnp.array([1., 2., 3.])
c, low = jsl.cho_factor(A)
print(jsl.cho_solve((c, low), b))
L = jsl.cholesky(A, lower=True)
print(jsl.solve_triangular(L, b, lower=True))
print(jsl.solve(A, b, assume_a="pos"))
print(jsl.expm(jnp.array([[0., 1.], [0., 0.]])))
print(jsl.det(A), jsl.inv(A)[0])
P, Lu, U = jsl.lu(A)
print(jnp.allclose(P @ Lu @ U, A), jsl.block_diag(jnp.ones((1, 1)), 2 * jnp.ones((1, 1))))
RESULTS = {"eigh": jnp.linalg.eigh(A)[0], "svd": jnp.linalg.svd(A, compute_uv=False),
           "qr_r_diag": jnp.abs(jnp.diag(jnp.linalg.qr(A)[1]))}
