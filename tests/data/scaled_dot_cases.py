"""Cases for jax.nn's block-scaled quantization (what scaled_dot_general does to its operands
before scaled_matmul, which JAX 0.10.2 runs only through cuDNN: on the CPU it raises), evaluated
by real JAX's `jax._src.cudnn.scaled_matmul_stablehlo.quantize`
(reference/make_scaled_dot_reference.py writes scaled_dot_reference.npz) and by jxkernel's
`jxkernel.nn.scaled._quantize` (tests/nn/test_scaled_dot.py). The narrow types come back as
float32, which holds each of their values exactly, so they compare bit for bit."""
import numpy as np


def operands(dtype=np.float32):
    rng = np.random.RandomState(11)
    x = (rng.randn(2, 3, 64) * np.exp(rng.uniform(-8, 8, size=(2, 3, 1)))).astype(dtype)
    x[0, 0, :32] = 0.0                           # a block of zeros: the smallest scale
    x[0, 1, :32] = 448.0 * 2.0 ** -3             # a block whose scale is a power of two
    x[1, 2, 5] = 1e30                            # a block whose values underflow but one
    return {"x": x}


def cases(jax, quantize, x64=False):
    """{case name: results} for one mode (quantize: JAX's, or jxkernel's, taking (x, config))."""
    jnp = jax.numpy
    x = jnp.asarray(operands(np.float64 if x64 else np.float32)["x"]).astype(np.float32)
    out = {}
    for mode, global_scale in (("mxfp8", None), ("nvfp4", jnp.array([0.5], np.float32))):
        config = jax.nn.get_scaled_dot_general_config(mode, global_scale)
        values, scales = quantize(x, config)
        out[mode] = [values.astype(np.float32), scales.astype(np.float32),
                     jnp.asarray(np.dtype(values.dtype).name == np.dtype(config.data_type).name),
                     jnp.asarray(np.dtype(scales.dtype).name == np.dtype(config.scale_type).name)]
    return out


def ulps(name: str) -> int:
    return 0        # rounding to a narrow type and powers of two: exact on any CPU
