"""Write tests/data/buffer_protocol_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_buffer_protocol_reference.py

What `run` and `run_two_devices` in tests/data/buffer_protocol_cases.py answer: an Array's
`memoryview` on CPU (its format, shape, strides, read-only flag, bytes) or JAX's BufferError,
for each dtype and for a deleted, donated, written or split Array. Two CPU devices, so that
the split cases run."""
import json
import os
import sys

import jax

jax.config.update("jax_num_cpu_devices", 2)
jax.config.update("jax_enable_x64", True)       # (int64, float64, complex128 as themselves)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from buffer_protocol_cases import run, run_two_devices  # noqa: E402

with open(os.path.join(DATA, "buffer_protocol_reference.json"), "w") as f:
    json.dump({**run(jax), **run_two_devices(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
