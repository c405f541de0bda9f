"""Convolution cases evaluated by both real JAX (reference/make_conv_reference.py writes the results
to conv_reference.npz and the jaxpr texts to conv_jaxprs.json) and jxkernel
(tests/lax/test_lax_convolution.py compares). Inputs are small integers, so every result is
exact whatever the summation order.

CASES: name -> (fun(lax, lhs, rhs), lhs shape, rhs shape or None, dtype, differentiable).
"""
import zlib

import numpy as np

NHWC = ("NHWC", "HWIO", "NHWC")

CASES = {
    "nchw_same": (lambda lax, x, w: lax.conv(x, w, (1, 1), "SAME"),
                  (2, 3, 6, 5), (4, 3, 3, 3), "float32", True),
    "nchw_valid_stride": (lambda lax, x, w: lax.conv(x, w, (2, 3), "VALID"),
                          (2, 3, 7, 6), (4, 3, 3, 2), "float32", True),
    "explicit_pad_dilations": (
        lambda lax, x, w: lax.conv_general_dilated(
            x, w, (1, 2), [(2, -1), (0, 3)], lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
        (1, 2, 6, 7), (3, 2, 3, 2), "float32", True),
    "general_padding": (
        lambda lax, x, w: lax.conv_with_general_padding(x, w, (2, 1), [(1, 1), (2, 0)],
                                                        None, (2, 2)),
        (2, 2, 7, 6), (3, 2, 2, 2), "float32", True),
    "nhwc_same_lower": (
        lambda lax, x, w: lax.conv_general_dilated(x, w, (2, 1), "SAME_LOWER",
                                                   rhs_dilation=(2, 1), dimension_numbers=NHWC),
        (2, 5, 6, 3), (3, 2, 3, 4), "float32", True),
    "nwc_1d": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")),
        (2, 9, 3), (3, 3, 2), "float32", True),
    "ncdhw_3d": (lambda lax, x, w: lax.conv_general_dilated(x, w, (1, 2, 1), "SAME"),
                 (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), "float32", True),
    "odd_layout": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (1, 2), [(1, 0), (1, 1)], dimension_numbers=("NWHC", "OHWI", "HCNW")),
        (2, 5, 4, 3), (4, 3, 2, 3), "float32", True),
    "feature_groups": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", feature_group_count=2),
        (2, 4, 5, 5), (6, 2, 3, 3), "float32", True),
    "depthwise_nhwc": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=NHWC, feature_group_count=3),
        (1, 5, 5, 3), (3, 3, 1, 6), "float32", True),
    "batch_groups": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", batch_group_count=2),
        (4, 3, 5, 5), (6, 3, 3, 3), "float32", True),
    "zero_spatial": (lambda lax, x, w: lax.conv_general_dilated(
        x, w, (), "VALID", dimension_numbers=("NC", "OI", "NC")),
        (3, 4), (5, 4), "float32", True),
    "empty_output": (lambda lax, x, w: lax.conv(x, w, (1, 1), "VALID"),
                     (1, 1, 3, 3), (2, 1, 4, 2), "float32", True),
    "transpose_same": (lambda lax, x, w: lax.conv_transpose(x, w, (2, 2), "SAME"),
                       (1, 4, 4, 2), (3, 3, 2, 3), "float32", True),
    "transpose_valid_kernel": (lambda lax, x, w: lax.conv_transpose(
        x, w, (2, 1), "VALID", transpose_kernel=True),
        (2, 3, 5, 2), (3, 2, 4, 2), "float32", True),
    "transpose_1d_explicit": (lambda lax, x, w: lax.conv_transpose(
        x, w, (3,), [(1, 2)], rhs_dilation=(2,)),
        (2, 5, 3), (4, 3, 2), "float32", True),
    "transpose_consistent": (lambda lax, x, w: lax.conv_transpose(
        x, w, (2, 2), [(1, 1), (0, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW"),
        use_consistent_padding=True),
        (1, 2, 4, 3), (3, 2, 3, 3), "float32", True),
    "complex64": (lambda lax, x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME"),
                  (1, 2, 5, 4), (3, 2, 2, 3), "complex64", True),
    "bf16_to_f32": (lambda lax, x, w: lax.conv(x, w, (1, 1), "SAME",
                                               preferred_element_type=np.float32),
                    (1, 2, 4, 4), (2, 2, 3, 3), "bfloat16", True),
    "int8_to_int32": (lambda lax, x, w: lax.conv(x, w, (1, 1), "SAME",
                                                 preferred_element_type=np.int32),
                      (1, 2, 5, 5), (3, 2, 3, 3), "int8", False),
    "int32": (lambda lax, x, w: lax.conv(x, w, (2, 1), "VALID"),
              (1, 2, 5, 5), (3, 2, 3, 3), "int32", False),
    "patches": (lambda lax, x: lax.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME"),
                (1, 2, 5, 4), None, "float32", True),
    "patches_nhwc": (lambda lax, x: lax.conv_general_dilated_patches(
        x, (3, 2), (1, 1), "VALID", rhs_dilation=(1, 2), dimension_numbers=NHWC),
        (2, 5, 6, 2), None, "float32", True),
}


def integers(name, shape, dtype, salt=""):
    """Small integer values, the same for every run (seeded by the case name)."""
    rng = np.random.RandomState(zlib.crc32((name + salt).encode()))
    x = rng.randint(-3, 4, size=shape).astype(np.float64)
    if dtype == "complex64":
        x = x + 1j * rng.randint(-3, 4, size=shape)
    return x


def operands(name, make_array):
    """The case's operands, built by `make_array(numpy values, dtype name)`."""
    _, lhs_shape, rhs_shape, dtype, _ = CASES[name]
    shapes = (lhs_shape,) if rhs_shape is None else (lhs_shape, rhs_shape)
    return [make_array(integers(name, s, dtype, str(i)), dtype) for i, s in enumerate(shapes)]


def cotangent(name, shape, dtype):
    return integers(name, shape, dtype, "ct")


def run(jax, lax, name, make_array):
    """{'out': value, 'grad0': ..., 'grad1': ...} of one case (vjp with an integer
    cotangent where the case is differentiable)."""
    fun, _, _, _, differentiable = CASES[name]
    args = operands(name, make_array)
    f = lambda *a: fun(lax, *a)
    out = f(*args)
    result = {"out": out}
    if differentiable:
        y, pullback = jax.vjp(f, *args)
        ct = make_array(cotangent(name, y.shape, str(y.dtype)), str(y.dtype))
        for i, g in enumerate(pullback(ct)):
            result[f"grad{i}"] = g
    return result


# jaxprs printed by make_jaxpr: name -> (fun(jax, lax, jnp, *args), arg shapes, dtype)
JAXPRS = {
    "conv_same": (lambda jax, lax, jnp, x, w: lax.conv(x, w, (1, 1), "SAME"),
                  [(1, 2, 5, 5), (3, 2, 3, 3)], "float32"),
    "conv_nhwc_precision": (lambda jax, lax, jnp, x, w: lax.conv_general_dilated(
        x, w, (2, 1), [(1, 0), (0, 2)], (1, 2), (2, 1), NHWC, precision="highest",
        preferred_element_type=jnp.float32), [(1, 5, 5, 2), (3, 3, 2, 4)], "float32"),
    "grad_both": (lambda jax, lax, jnp, x, w: jax.grad(
        lambda x, w: (lax.conv(x, w, (2, 1), "SAME") ** 2).sum(), argnums=(0, 1))(x, w),
        [(1, 2, 5, 5), (3, 2, 3, 3)], "float32"),
    "grad_feature_groups": (lambda jax, lax, jnp, x, w: jax.grad(
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                              feature_group_count=2).sum(),
        argnums=(0, 1))(x, w), [(2, 4, 5, 5), (6, 2, 3, 3)], "float32"),
    "grad_batch_groups": (lambda jax, lax, jnp, x, w: jax.grad(
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                              batch_group_count=2).sum(),
        argnums=(0, 1))(x, w), [(4, 3, 5, 5), (6, 3, 3, 3)], "float32"),
    "vmap_both": (lambda jax, lax, jnp, x, w: jax.vmap(
        lambda x, w: lax.conv(x, w, (1, 1), "SAME"))(x, w),
        [(2, 1, 2, 5, 5), (2, 3, 2, 3, 3)], "float32"),
    "vmap_lhs_batch_groups": (lambda jax, lax, jnp, x, w: jax.vmap(
        lambda x: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2),
        in_axes=1)(x), [(4, 2, 3, 5, 5), (6, 3, 3, 3)], "float32"),
    "vmap_rhs_feature_groups": (lambda jax, lax, jnp, x, w: jax.vmap(
        lambda w: lax.conv_general_dilated(x, w, (1, 1), "VALID", feature_group_count=2),
        in_axes=-1)(w), [(2, 4, 5, 5), (6, 2, 3, 3, 2)], "float32"),
    "conv_transpose_kernel": (lambda jax, lax, jnp, x, w: lax.conv_transpose(
        x, w, (2, 2), "SAME", transpose_kernel=True), [(1, 5, 5, 2), (3, 3, 4, 2)], "float32"),
    "patches": (lambda jax, lax, jnp, x: lax.conv_general_dilated_patches(
        x, (2, 3), (1, 1), "SAME"), [(1, 2, 5, 4)], "float32"),
    "convolve": (lambda jax, lax, jnp, a, v: jnp.convolve(a, v), [(5,), (3,)], "float32"),
    "correlate_swapped": (lambda jax, lax, jnp, a, v: jnp.correlate(a, v, "same"),
                          [(3,), (5,)], "float32"),
    "correlate_complex": (lambda jax, lax, jnp, a, v: jnp.correlate(a, v.real, "full"),
                          [(5,), (3,)], "complex64"),
}
