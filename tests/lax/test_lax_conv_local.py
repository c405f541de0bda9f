"""lax.conv_general_dilated_local (a locally connected convolution: one kernel per output
position), checked against a direct float64 NumPy sum over each window, in NCW and in NHWC
layouts with strides, padding and dilation, under jit and grad."""
import numpy as np
import pytest
from numerics import REDUCTION, assert_allclose_ulp

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import lax


def _local_conv_ncw(x, w, stride, pad, window, dilation):
    """x: (N, C, W); w: (O, C*window, W_out), features ordered channel-major as the patches."""
    n, c, width = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), pad))
    span = (window - 1) * dilation + 1
    w_out = (xp.shape[2] - span) // stride + 1
    out = np.zeros((n, w.shape[0], w_out))
    for p in range(w_out):
        patch = xp[:, :, p * stride: p * stride + span: dilation]        # N, C, window
        out[:, :, p] = patch.reshape(n, c * window) @ w[:, :, p].T
    return out


def test_docstring_example():
    # (the module's other docstrings sketch; this function's example runs)
    x, w = jnp.ones((1, 2, 5)), jnp.ones((3, 2 * 2, 4))
    assert lax.conv_general_dilated_local(x, w, (1,), "VALID", (2,)).shape == (1, 3, 4)


def test_one_spatial_dim_with_stride_padding_and_dilation_under_jit_and_grad():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 9).astype(np.float32)
    w = rng.randn(4, 3 * 3, 4).astype(np.float32)
    f = jxkernel.jit(lambda a, b: lax.conv_general_dilated_local(
        a, b, (2,), [(1, 2)], (3,), rhs_dilation=(2,)))
    want = _local_conv_ncw(x.astype(np.float64), w.astype(np.float64), 2, (1, 2), 3, 2)
    assert_allclose_ulp(f(x, w), want.astype(np.float32), REDUCTION, scale=np.abs(want).max(),
                        gpu="tf32")
    # the loss is linear in w: its gradient is the patches summed against the ones
    g = jxkernel.grad(lambda b: jnp.sum(f(x, b)))(w)
    ones = _local_conv_ncw(x.astype(np.float64), np.ones_like(w, np.float64), 2, (1, 2), 3, 2)
    assert g.shape == w.shape and np.isfinite(np.asarray(g)).all()
    assert_allclose_ulp(jnp.sum(g * w), np.float32(np.sum(want)), REDUCTION,
                        scale=np.abs(ones).sum() * np.abs(w).max(), gpu="tf32")


def test_channels_last_layout_matches_channels_first():
    rng = np.random.RandomState(1)
    x = rng.randn(1, 2, 6, 5).astype(np.float32)                    # NCHW
    w = rng.randn(3, 2 * 2 * 2, 5, 4).astype(np.float32)            # O, I*window, H_out, W_out
    first = lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 2))
    last = lax.conv_general_dilated_local(
        np.transpose(x, (0, 2, 3, 1)), np.transpose(w, (2, 3, 1, 0)), (1, 1), "VALID", (2, 2),
        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    assert first.shape == (1, 3, 5, 4)
    assert_allclose_ulp(np.transpose(np.asarray(last), (0, 3, 1, 2)), first, REDUCTION,
                        scale=np.abs(np.asarray(first)).max(), gpu="tf32")


def test_precision_must_be_a_precision():
    with pytest.raises(ValueError):
        lax.conv_general_dilated_local(jnp.ones((1, 1, 3)), jnp.ones((1, 2, 2)), (1,), "VALID",
                                       (2,), precision="bogus")
