# conformance: ulps=16
import jax
import jax.numpy as jnp
from jax import lax


def scalar_solve(f, y):
    return y / f(1.0)


def binary_search(func, x0, low=0.0, high=100.0):
    def _binary_search(func, x0):
        def body(_, carry):
            lo, hi = carry
            mid = (lo + hi) / 2
            too_large = func(mid) > 0
            return jnp.where(too_large, lo, mid), jnp.where(too_large, mid, hi)
        return lax.fori_loop(0, 40, body, (low, high))[0]

    return lax.custom_root(func, x0, _binary_search, scalar_solve)


def sqrt_cubed(x):
    return binary_search(lambda y: y ** 2 - x, 0.0) ** 3


print(sqrt_cubed(5.0), jax.grad(sqrt_cubed)(5.0))
A = jnp.array([[2., 1.], [1., 3.]])
b = jnp.array([1., 2.])
matvec = lambda v: A @ v
solve = lambda mv, v: jnp.linalg.solve(A, v)
x = lax.custom_linear_solve(matvec, b, solve, symmetric=True)
print(x, jax.grad(lambda b: lax.custom_linear_solve(matvec, b, solve, symmetric=True).sum())(b))
print(jax.scipy.sparse.linalg.cg(matvec, b, tol=1e-6)[0])
