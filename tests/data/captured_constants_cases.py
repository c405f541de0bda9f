"""A jitted function closing over a 64 KiB array, lowered under jax_captured_constants_warn_bytes
at its size, one byte more and -1 (JAX's jax_jit_test): the warnings each lowering gives.
Shared by reference/make_captured_constants_reference.py (real JAX 0.10.2) and
tests/transforms/test_captured_constants.py (jxkernel)."""
import warnings

import numpy as np


def run(jax, config) -> dict:
    """{threshold: [warning texts]}; `config` is the side's jax._src.config."""
    y = jax.numpy.ones((128, 128), dtype=np.float32)
    x = jax.numpy.zeros((128,), dtype=np.float32)
    out = {}
    for name, threshold in (("size", y.nbytes), ("size+1", y.nbytes + 1), ("-1", -1)):
        def func(x):
            return x @ y
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with config.captured_constants_warn_bytes(threshold):
                jax.block_until_ready(jax.jit(func)(x))
        out[name] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return out
