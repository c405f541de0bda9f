# conformance: ulps=64 atol=1e-6
import jax
import jax.numpy as jnp

A = jnp.array([[3., 1.], [1., 2.]])
b = jnp.array([9., 8.])
print(jnp.linalg.solve(A, b))
print(jnp.linalg.inv(A))
print(jnp.linalg.det(A), jnp.linalg.slogdet(A))
w, v = jnp.linalg.eigh(A)
print(w)
print(jnp.linalg.svd(A, compute_uv=False), jnp.linalg.matrix_rank(A))
print(jnp.linalg.norm(A), jnp.linalg.norm(A, ord=1), jnp.linalg.cond(A))
print(jnp.linalg.pinv(jnp.array([[1., 2.], [2., 4.]])))
x, res, rank, sv = jnp.linalg.lstsq(jnp.array([[1., 0.], [1., 1.], [1., 2.]]), jnp.array([1., 2., 4.]))
print(x, rank)
print(jax.grad(lambda M: jnp.linalg.det(M))(A))
print(jnp.linalg.matrix_power(A, 3), jnp.linalg.cholesky(A))
RESULTS = {"eigvec_abs": jnp.abs(v), "qr_abs": jnp.abs(jnp.linalg.qr(A)[0])}
