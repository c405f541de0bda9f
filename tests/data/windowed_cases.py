"""lax.reduce_window cases evaluated by both real JAX (reference/make_windowed_reference.py writes the
results to windowed_reference.npz) and jxkernel (tests/lax/test_lax_windowed.py compares): pooling
values and derivatives. Inputs are small integers, so windows hold ties and the derivatives
show which tied element JAX credits.

ULPS: the results whose floats may differ per CPU (XLA fuses the jitted cases differently from
JAX's eager recording, and sums in its own order per ISA), with their bound in ulps measured at
the result's largest |value|; every other result (max/min pooling, their tangents and
cotangents: selections and sums of distinct powers of ten) is compared bit for bit.
"""
import numpy as np

# worst seen (scaled ulps) on Intel AVX-512, AVX2 and SSE4.2 code generation in brackets;
# 4 where a few sums and a division or product meet (unscaled up to 32 ulps: cancellation)
ULPS = {
    "avg_nhwc_same": 4, "avg_nhwc_same_grad": 4, "avg_nhwc_same_jvp": 4,   # [0.125, 1, 0.25]
    "sum_dilations": 4, "sum_dilations_grad": 4, "sum_dilations_jvp": 4,   # [0, 0, 0]
    "mul_generic": 4, "mul_generic_jvp": 4,                                # [0, 1]
    "pytree": 4, "pytree_jvp": 4,                                          # [1, 1]
    "max_hvp": 4, "max_grad_of_grad": 4,                                   # [0, 0]
}


def _ties(rng, shape, high=3):
    return rng.randint(0, high, size=shape).astype(np.float32)


def cases(jax, lax, jnp):
    rng = np.random.RandomState(0)
    out = {}
    inf = np.float32(np.inf)

    def pool(x, init, op, *args, **kw):
        return lax.reduce_window(x, init, op, *args, **kw)

    def record(name, f, x, with_grad=True, with_jvp=True):
        y = f(x)
        out[name] = y
        w = rng.randn(*np.shape(y)).astype(np.float32)
        t = rng.randn(*np.shape(x)).astype(np.float32)
        if with_grad:
            out[name + "_grad"] = jax.grad(lambda x: (f(x) * w).sum())(x)
        if with_jvp:
            out[name + "_jvp"] = jax.jvp(f, (x,), (t,))[1]

    x = _ties(rng, (2, 5, 6, 3))
    record("max_nhwc_same", lambda x: pool(x, -inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), x)
    x = _ties(rng, (2, 3, 5, 5))
    record("max_nchw_valid", lambda x: pool(x, -inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"), x)
    x = _ties(rng, (7, 6))
    record("max_overlap_pad", lambda x: pool(x, -inf, lax.max, (3, 2), (1, 1), [(1, 2), (0, 1)]), x)
    x = _ties(rng, (5, 4))
    record("max_base_dilation",
           lambda x: pool(x, -inf, lax.max, (2, 3), (1, 2), [(1, 0), (1, 1)], base_dilation=(2, 1)), x)
    x = _ties(rng, (9,))
    record("min_1d_same_lower", lambda x: pool(x, inf, lax.min, (3,), (2,), "SAME_LOWER"), x)
    x = _ties(rng, (4, 6))
    record("min_2d_stride", lambda x: pool(x, inf, lax.min, (2, 2), (2, 1), [(0, 1), (1, 0)]), x)
    x = _ties(rng, (9,))
    record("max_window_dilation",       # JAX has no VJP here (window dilation)
           lambda x: pool(x, -inf, lax.max, (2,), (1,), "VALID", window_dilation=(3,)), x,
           with_grad=False)
    x = rng.randn(2, 5, 4, 3).astype(np.float32)

    def avg(x):
        s = pool(x, 0., lax.add, (1, 3, 2, 1), (1, 2, 1, 1), "SAME")
        n = pool(jnp.ones_like(x), 0., lax.add, (1, 3, 2, 1), (1, 2, 1, 1), "SAME")
        return s / n
    record("avg_nhwc_same", avg, x)
    x = rng.randn(4, 5).astype(np.float32)
    record("sum_dilations", lambda x: pool(x, 0., lax.add, (2, 3), (2, 1), [(1, 1), (2, 0)],
                                           base_dilation=(2, 1), window_dilation=(1, 2)), x)
    out["max_int"] = pool(rng.randint(-5, 5, (6, 5)).astype(np.int32), np.int32(-2**31), lax.max,
                          (2, 2), (1, 2), "SAME")
    x = rng.uniform(0.5, 1.5, (4, 5)).astype(np.float32)
    record("mul_generic", lambda x: pool(x, np.float32(1), lax.mul, (2, 2), (1, 1), [(0, 1), (1, 0)]),
           x, with_grad=False)
    x, y = _ties(rng, (4, 5)), rng.randn(4, 5).astype(np.float32)
    pair = lambda a, b: pool((a, b), (-inf, np.float32(0)),
                             lambda p, q: (lax.max(p[0], q[0]), p[1] * q[1] + p[1] + q[1]),
                             (2, 3), (1, 1), "VALID")
    out["pytree"] = pair(x, y)
    out["pytree_jvp"] = jax.jvp(pair, (x, y), (np.ones_like(x), y))[1]
    # second order: hvp (jvp of the gradient) and the gradient of a gradient of max pooling
    x = _ties(rng, (6, 6))
    mp = lambda x: pool(x, -inf, lax.max, (3, 3), (2, 2), [(1, 1), (1, 1)])
    f = lambda x: (mp(x) ** 2).sum()
    t = rng.randn(6, 6).astype(np.float32)
    w = rng.randn(6, 6).astype(np.float32)
    out["max_hvp"] = jax.jvp(jax.grad(f), (x,), (t,))[1]
    out["max_grad_of_grad"] = jax.grad(lambda x: (jax.grad(f)(x) * w).sum())(x)
    return out
