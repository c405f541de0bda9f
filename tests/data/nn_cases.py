"""Cases of jax.nn.initializers, dot_product_attention and logmeanexp, shared by
reference/make_nn_reference.py (run with real JAX) and tests/nn/test_nn_initializers.py /
tests/nn/test_nn_attention.py (run with jxkernel).

Each case is a Python expression over the names `jax`, `jnp`, `nn`, `I` (= nn.initializers),
`np`, `k` (= jax.random.key(42)), `k0` (= jax.random.PRNGKey(0)) and the input arrays of
`inputs()`. Expressions that evaluate to a tuple store each element.
"""
import ml_dtypes
import numpy as np

from numerics import ELEMENTWISE, assert_allclose_ulp

# How the tests compare a case's floats with JAX's (tests/support/numerics.py's assert_allclose_ulp):
# bit for bit where none is given (zeros, constants, uniform draws times a constant: exact on
# every CPU), else within `ulps` units in the last place, measured at the largest |value| of
# the result where scale="max". Measured worst across Intel AVX-512 / AVX2 / AVX / SSE4.2
# code generation and OpenBLAS kernels (the data is from an AMD EPYC): in brackets.
#
# draws through transcendentals (the normal's erfinv; the complex uniform's sqrt, cos, sin) [2]
DRAWN = dict(ulps=ELEMENTWISE)
# the truncated normal: u = x * (b - a) + a is an FMA on some CPUs and two roundings on others,
# cancels near 0, and erfinv's slope grows to 9x at the +-2 bounds [5 at the largest |value|]
TRUNCATED = dict(ulps=16, scale="max")
# QR of normal draws (LAPACK's Householder kernels differ per CPU); the small entries of the
# orthogonal factor are measured at its largest [7 at the largest |value|]
ORTHOGONAL = dict(ulps=16, scale="max")
# the attention cases (softmax and einsums: vectorized exp and sums whose order follows the
# vector width), all of them, at the largest |value| of each result: outputs and gradients
# near 0 come out of cancelling sums [1 at the largest |value|; up to 48 elementwise]
ATTN_TOLERANCE = dict(ulps=ELEMENTWISE, scale="max")

# (expression, x64[, tolerance]): x64 cases run with jax_enable_x64 on.
INIT_CASES = [
    ("I.zeros(k, (2, 3))", False),
    ("I.ones(k, (3,), jnp.float16)", False),
    ("I.constant(-7)(k, (2, 3))", False),
    ("I.constant(2.5, jnp.bfloat16)(k, (4,))", False),
    ("I.uniform(10.0)(k, (2, 3))", False),
    ("I.uniform()(k0, (4, 5), jnp.bfloat16)", False),
    ("I.normal(5.0)(k, (2, 3))", False, DRAWN),
    ("I.normal()(k0, (7,), jnp.float16)", False, DRAWN),
    ("I.normal(2.0, jnp.complex64)(k, (3, 2))", False, DRAWN),
    ("I.truncated_normal(5.0)(k, (2, 3))", False, TRUNCATED),
    ("I.truncated_normal(1.0, lower=-1.0, upper=3.0)(k0, (9,))", False, TRUNCATED),
    ("I.glorot_uniform()(k, (2, 3))", False),
    ("I.glorot_normal()(k, (4, 5))", False, TRUNCATED),
    ("I.lecun_uniform()(k0, (3, 3, 4))", False),
    ("I.lecun_normal()(k, (2, 3))", False, TRUNCATED),
    ("I.he_uniform()(k, (5, 2))", False),
    ("I.he_normal()(k0, (3, 3, 2, 4), jnp.bfloat16)", False, TRUNCATED),
    ("I.variance_scaling(2.0, 'fan_out', 'normal')(k, (3, 4, 5))", False, DRAWN),
    ("I.variance_scaling(0.5, 'fan_avg', 'uniform', in_axis=0, out_axis=2)(k, (3, 4, 5))", False),
    ("I.variance_scaling(1.0, 'fan_geo_avg', 'truncated_normal')(k0, (6, 4))", False,
     TRUNCATED),
    ("I.variance_scaling(1.0, 'fan_in', 'normal', in_axis=(0, 1), out_axis=-1, batch_axis=2)"
     "(k, (2, 3, 4, 5))", False, DRAWN),
    ("I.variance_scaling(3.0, 'fan_in', 'uniform', batch_axis=(0,))(k0, (2, 3, 4), jnp.float16)",
     False),
    ("I.variance_scaling(1.0, 'fan_in', 'uniform', dtype=jnp.complex64)(k, (2, 3))", False,
     DRAWN),
    ("I.variance_scaling(1.0, 'fan_out', 'truncated_normal')(k0, (3, 5), jnp.complex64)", False,
     TRUNCATED),
    ("I.variance_scaling(1.0, 'fan_avg', 'normal')(k, (4, 3), jnp.complex64)", False, DRAWN),
    ("I.orthogonal()(k, (2, 3))", False, ORTHOGONAL),
    ("I.orthogonal()(k0, (4, 4))", False, ORTHOGONAL),
    ("I.orthogonal(2.0, column_axis=0)(k, (3, 2, 2))", False, ORTHOGONAL),
    ("I.orthogonal()(k, (5, 2))", False, ORTHOGONAL),
    ("I.orthogonal()(k, (0, 3))", False, ORTHOGONAL),
    ("I.delta_orthogonal()(k, (3, 3, 3))", False, ORTHOGONAL),
    ("I.delta_orthogonal(0.5)(k0, (2, 3, 2, 4))", False, ORTHOGONAL),
    ("I.delta_orthogonal()(k, (3, 1, 2, 2, 3))", False, ORTHOGONAL),
    ("I.glorot_uniform()(k, (3, 4))", True),
    ("I.he_normal(dtype=jnp.float64)(k0, (5, 3))", True, TRUNCATED),
    ("I.orthogonal()(k, (3, 3))", True, ORTHOGONAL),
    ("I.variance_scaling(1.0, 'fan_in', 'uniform')(k, (2, 3), jnp.complex128)", True,
     DRAWN),
]


def inputs():
    """The input arrays of the attention and logmeanexp cases (NumPy, fixed seed)."""
    rng = np.random.default_rng(0)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return dict(
        q=f(2, 5, 4, 8), kk=f(2, 6, 4, 8), v=f(2, 6, 4, 8),           # B T N H / B S K H
        q3=f(5, 4, 8), k3=f(6, 4, 8), v3=f(6, 4, 8),                    # T N H
        kg=f(2, 6, 2, 8), vg=f(2, 6, 2, 8),                             # K = 2 (GQA)
        k1=f(2, 6, 1, 8), v1=f(2, 6, 1, 8),                             # K = 1 (MQA)
        bias=f(2, 4, 5, 6), bias1=f(1, 1, 5, 6),
        mask=rng.random((2, 1, 5, 6)) > 0.3, maskh=rng.random((1, 4, 5, 6)) > 0.3,
        qs=np.array([3, 5], np.int32), kvs=np.array([6, 2], np.int32),
        w=f(2, 5, 4, 8),
        x=f(3, 4), xm=rng.random((3, 4)) > 0.4,
    )


# attention and logmeanexp cases (32-bit mode), compared within ATTN_TOLERANCE
ATTN_CASES = [
    "nn.dot_product_attention(q, kk, v)",
    "nn.dot_product_attention(q3, k3, v3)",
    "nn.dot_product_attention(q, kk, v, scale=0.5)",
    "nn.dot_product_attention(q, kk, v, bias)",
    "nn.dot_product_attention(q, kk, v, bias1)",
    "nn.dot_product_attention(q, kk, v, mask=mask)",
    "nn.dot_product_attention(q, kk, v, bias, maskh)",
    "nn.dot_product_attention(q, kk, v, is_causal=True)",
    "nn.dot_product_attention(q, kk, v, query_seq_lengths=qs)",
    "nn.dot_product_attention(q, kk, v, key_value_seq_lengths=kvs)",
    "nn.dot_product_attention(q, kk, v, query_seq_lengths=qs, key_value_seq_lengths=kvs, "
    "is_causal=True)",
    "nn.dot_product_attention(q, kk, v, local_window_size=1)",
    "nn.dot_product_attention(q, kk, v, local_window_size=(2, 0), is_causal=True)",
    "nn.dot_product_attention(q, kg, vg)",
    "nn.dot_product_attention(q, kg, vg, bias, is_causal=True)",
    "nn.dot_product_attention(q, k1, v1, mask=maskh)",
    "nn.dot_product_attention(q, kk, v, bias, return_residual=True)",
    "nn.dot_product_attention(q3, k3, v3, is_causal=True, return_residual=True)",
    "nn.dot_product_attention(q.astype(jnp.bfloat16), kk.astype(jnp.bfloat16), "
    "v.astype(jnp.bfloat16), is_causal=True)",
    "nn.dot_product_attention(q.astype(jnp.float16), kg.astype(jnp.float16), "
    "vg.astype(jnp.float16), bias)",
    "jax.jit(nn.dot_product_attention, static_argnames='is_causal')(q, kk, v, bias, "
    "is_causal=True)",
    "jax.grad(lambda q, kk, v, b: (nn.dot_product_attention(q, kk, v, b, is_causal=True) * w)"
    ".sum(), argnums=(0, 1, 2, 3))(q, kk, v, bias)",
    "jax.grad(lambda q, kk, v: (nn.dot_product_attention(q, kk, v, key_value_seq_lengths=kvs) "
    "* w).sum(), argnums=(0, 1, 2))(q, kg, vg)",
    "jax.vmap(lambda q, kk, v: nn.dot_product_attention(q, kk, v, is_causal=True))(q, kk, v)",
    "nn.logmeanexp(x)",
    "nn.logmeanexp(x, axis=1)",
    "nn.logmeanexp(x, axis=0, keepdims=True)",
    "nn.logmeanexp(x, axis=1, where=xm)",
    "jax.grad(lambda x: nn.logmeanexp(x, axis=1).sum())(x)",
]


def compare_with_reference(ref, prefix, leaves, tolerance=None):
    """The tests' one comparison: each leaf of a case's result against the reference arrays
    "<prefix>_<j>" (bfloat16 ones stored as float32, which holds them exactly), dtype and
    shape exactly, values bit for bit or within `tolerance` (a dict of ulps and scale)."""
    assert f"{prefix}_{len(leaves)}" not in ref, "fewer results than JAX gave"
    for j, leaf in enumerate(leaves):
        want, want_dtype = ref[f"{prefix}_{j}"], str(ref[f"{prefix}_{j}:dtype"])
        got = np.asarray(leaf)
        assert got.dtype.name == want_dtype, (prefix, j, got.dtype, want_dtype)
        if want_dtype == "bfloat16":
            want = want.astype(ml_dtypes.bfloat16)
        if tolerance is None:
            assert got.shape == want.shape, (prefix, j, got.shape, want.shape)
            np.testing.assert_array_equal(got, want, err_msg=f"{prefix}_{j}")
            continue
        scale = tolerance.get("scale")
        if scale == "max":
            scale = np.abs(want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
                           ).max(initial=0)
        assert_allclose_ulp(got, want, tolerance["ulps"], scale=scale, err_msg=f"{prefix}_{j}")
