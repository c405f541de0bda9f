"""Generate scaled_dot_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_scaled_dot_reference.py

The cases (jax.nn's block-scaled quantization for scaled_dot_general, mxfp8 and nvfp4) are in
tests/data/scaled_dot_cases.py; recording.py says how they are stored.
"""

import jax
from jax._src.cudnn.scaled_matmul_stablehlo import quantize
from recording import record_modes

record_modes(jax, "scaled_dot_cases", (jax, quantize), "scaled_dot_reference.npz")
