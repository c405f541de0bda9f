"""lax.associative_scan, lax.map(batch_size=...) and lax.full cases, evaluated by real JAX
(reference/make_loops_reference.py writes loops_reference.npz) and by jxkernel
(tests/lax/test_lax_loops.py compares). `jax` is the module under test.

ULPS: the cases whose floats may differ per CPU, with their bound in ulps; every other case
is compared bit for bit, being copies, integers, or single correctly rounded adds and
multiplies in a fixed order.
"""
import numpy as np

# name -> (ulps, scaled): `scaled` measures the error at the leaf's largest |value| (results of
# cancellation). Worst seen against the AMD-recorded data on Intel AVX-512, AVX2 and SSE4.2
# code generation in brackets.
ULPS = {
    "assoc_matmul": (4, True),           # 2x2 dots, FMA or not per ISA [1; 8 unscaled]
    "map_divisible": (4, True),          # a sum of three values [0]
    "map_fewer_than_batch": (4, False),  # ELEMENTWISE: sin [0]
}


def cases(jax):
    jnp, lax = jax.numpy, jax.lax
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 3)).astype(np.float32)
    m = rng.standard_normal((6, 2, 2)).astype(np.float32)
    out = {f"assoc_add_n{n}": lax.associative_scan(jnp.add, x[:n]) for n in [1, 2, 5, 7]}
    out["assoc_reverse"] = lax.associative_scan(jnp.add, x, reverse=True)
    out["assoc_axis1"] = lax.associative_scan(jnp.multiply, x.T, axis=1)
    out["assoc_axis_neg"] = lax.associative_scan(jnp.maximum, x, axis=-1)
    out["assoc_matmul"] = lax.associative_scan(jnp.matmul, m)
    out["assoc_pytree"] = lax.associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (x, x + 1))
    out["assoc_bool"] = lax.associative_scan(jnp.logical_or, x > 1)
    out["assoc_int"] = lax.associative_scan(jnp.add, np.arange(9, dtype=np.int32))
    out["assoc_jit"] = jax.jit(lambda v: lax.associative_scan(jnp.add, v))(x)
    out["assoc_grad"] = jax.grad(lambda v: lax.associative_scan(jnp.multiply, v).sum())(x)
    out["assoc_vmap"] = jax.vmap(lambda v: lax.associative_scan(jnp.add, v), in_axes=1)(x)
    out["map_remainder"] = lax.map(lambda v: v * 2 + 1, x, batch_size=3)
    out["map_divisible"] = lax.map(lambda v: (v.sum(), v), x[:6], batch_size=3)
    out["map_fewer_than_batch"] = lax.map(jnp.sin, x[:2], batch_size=3)
    out["full_weak"] = lax.full((2, 3), 1.5)
    out["full_int8"] = lax.full((2,), 7, np.int8)
    out["full_wraps"] = lax.full((2,), 2 ** 40, np.int32)
    out["full_like"] = lax.full_like(np.zeros(3, np.int8), 2)
    out["full_like_shape"] = lax.full_like(x, 3, dtype=np.float16, shape=(2, 2))
    return out
