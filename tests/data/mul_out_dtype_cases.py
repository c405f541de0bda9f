"""Cases of `lax.mul(x, y, out_dtype=)`, JAX 0.10.2's mixed-precision multiply (operands of
different dtypes, each converted to `out_dtype` first), evaluated by real JAX
(reference/make_mul_out_dtype_reference.py writes mul_out_dtype_reference.npz) and by jxkernel
(tests/lax/test_lax_mul_out_dtype.py): values, jit, vmap, jvp, and gradients, whose
cotangents come back in each operand's own dtype. One correctly rounded multiply of exactly
converted operands: the results compare bit for bit."""
import numpy as np


def operands(x64):
    wide = np.float64 if x64 else np.float32
    return (np.array([1.5, -2.25, 3.0, 0.1], np.float16), np.array([0.5, 4.0, -1.0, 7.3], wide))


def cases(jax, x64=False):
    lax = jax.lax
    x, y = operands(x64)
    wide = y.dtype

    def f(a, b, out=wide):
        return lax.mul(a, b, out_dtype=out)

    def loss(a, b):
        return f(a, b).sum()

    return {
        "wide": f(x, y),
        "narrow": f(x, y, np.float16),
        "scalar_times_vector": f(np.float16(2.5), y),
        "same_dtype": f(y, y),
        "jit": jax.jit(f)(x, y),
        "vmap": jax.vmap(f)(x, y),
        "jvp": jax.jvp(f, (x, y), (x, y)),
        "grad": jax.grad(loss, (0, 1))(x, y),
        "grad_of_grad": jax.grad(lambda a: jax.grad(loss, 1)(a, y).sum())(x),
        "narrow_grad": jax.grad(lambda a, b: f(a, b, np.float16).sum(), (0, 1))(x, y),
    }


def ulps(name):
    return 0
