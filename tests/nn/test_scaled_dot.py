"""jax.nn's block-scaled products (jxkernel/nn/scaled.py): the configs, the quantization
against JAX's recorded values (tests/data/scaled_dot_cases.py, recorded by
reference/make_scaled_dot_reference.py), and scaled_matmul's refusal, as JAX 0.10.2's on the
CPU (its only kernels are cuDNN's and hipBLASLt's)."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples
from recorded_modes import cases_test
from scaled_dot_cases import cases, ulps

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.nn import scaled

test_quantization_matches_jax = cases_test(cases, (jax, scaled._quantize),
                                           "scaled_dot_reference.npz", ulps)


def test_configs_are_jaxs():
    import ml_dtypes
    mx = jax.nn.get_scaled_dot_general_config('mxfp8')
    assert (mx.mode, mx.block_size, mx.data_type, mx.scale_type, mx.global_scale,
            mx.infer_only) == ('mxfp8', 32, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu,
                               None, False)
    nv = jax.nn.get_scaled_dot_general_config('nvfp4')
    assert (nv.mode, nv.block_size, nv.data_type, nv.scale_type) == (
        'nvfp4', 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(np.asarray(nv.global_scale), np.ones(1, np.float32))
    # JAX's repr names the ml_dtypes classes
    assert repr(mx) == ("BlockScaleConfig(mode='mxfp8', block_size=32, data_type=<class "
                        "'ml_dtypes.float8_e4m3fn'>, scale_type=<class "
                        "'ml_dtypes.float8_e8m0fnu'>, global_scale=None, infer_only=False)")
    with pytest.raises(ValueError, match="Unsupported mode: fp8"):
        jax.nn.get_scaled_dot_general_config('fp8')


# on a CUDA GPU the primitive lowers (cuDNN, or dequantize-and-dot), so JAX does not refuse
@pytest.mark.cpu_only("CPU backend")
def test_scaled_products_raise_as_jax_does_without_a_kernel():
    lhs, rhs = jnp.ones((2, 4, 64)), jnp.ones((2, 8, 64))
    platform = jax.default_backend()
    message = f"MLIR translation rule for primitive 'scaled_matmul' not found for platform {platform}"
    for mode in ('mxfp8', 'nvfp4'):
        configs = [jax.nn.get_scaled_dot_general_config(mode)] * 3
        with pytest.raises(NotImplementedError, match=message):
            jax.nn.scaled_dot_general(lhs, rhs, (((2,), (2,)), ((0,), (0,))), configs=configs)
    scales = jnp.ones((2, 4, 2))
    with pytest.raises(NotImplementedError, match=message):
        jax.nn.scaled_matmul(lhs, lhs, scales, scales)
    # without configs it is lax.dot_general
    out = jax.nn.scaled_dot_general(lhs, rhs, (((2,), (2,)), ((0,), (0,))))
    assert out.shape == (2, 4, 8) and float(out[0, 0, 0]) == 64.0


def test_bad_arguments_raise_jaxs_errors():
    a, s = jnp.ones((1, 1, 3)), jnp.ones((1, 1, 1))
    with pytest.raises(ValueError, match="requires all inputs to be 3-dimensional arrays"):
        jax.nn.scaled_matmul(a[0], a, s, s)
    with pytest.raises(ValueError, match=r"matching batch \(B\) and contract \(K\) dimensions, "
                                         r"but got shapes \(1, 1, 3\) and \(1, 1, 4\)"):
        jax.nn.scaled_matmul(a, jnp.ones((1, 1, 4)), s, s)
    with pytest.raises(ValueError, match="scales to match non-contract dimensions"):
        jax.nn.scaled_matmul(a, a, jnp.ones((1, 2, 1)), s)
    with pytest.raises(TypeError, match="Only support preferred_element_type in"):
        jax.nn.scaled_dot_general(a, a, (((2,), (2,)), ((0,), (0,))), jnp.int32,
                                  configs=[jax.nn.get_scaled_dot_general_config('mxfp8')] * 3)


def test_docstring_examples():
    check_docstring_examples("jxkernel.nn.scaled", {"jnp": jnp, "jax": jax})
