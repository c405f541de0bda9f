"""jax._src.api and jax._src.lax.lax, which JAX's primitives guide imports: the very
transformations and lax operations of jxkernel, not copies."""
import numpy as np

import jxkernel as jax
import jxkernel.lax
from jxkernel._src import api
from jxkernel._src.lax import lax


def test_private_lax_is_jxkernels_lax():
    assert lax.add is jxkernel.lax.add and lax.mul is jxkernel.lax.mul
    assert lax.add_p is jxkernel.lax.add_p and lax.full_like is jxkernel.lax.full_like
    assert set(jxkernel.lax.__all__) <= set(dir(lax))


def test_private_api_transforms_as_the_primitives_guide_uses_them():
    def square_add_lax(a, b):
        return lax.add(lax.mul(a, a), b)

    assert api.jit is jax.jit and api.vmap is jax.vmap
    np.testing.assert_array_equal(api.grad(square_add_lax, argnums=0)(2.0, 10.0), 4.0)
    primal, tangent = api.jvp(square_add_lax, (2.0, 10.0), (1.0, 1.0))
    assert (float(primal), float(tangent)) == (14.0, 5.0)
    batched = api.jit(api.vmap(square_add_lax))(np.array([2.0, 3.0]), np.array([10.0, 20.0]))
    np.testing.assert_array_equal(batched, [14.0, 29.0])
    zeros = lax.full_like(np.ones(3, np.float32), 0)
    assert zeros.dtype == np.float32 and zeros.shape == (3,)


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel._src.api")
    check_docstring_examples("jxkernel._src.lax.lax")
