"""Write tests/data/string_arrays_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_string_arrays_reference.py

What `run` and `run_two_devices` in tests/data/string_arrays_cases.py answer: NumPy StringDType
arrays put on CPU devices and read back, jit's, grad's and vmap's answers for them. Two CPU
devices, so that the split cases run."""
import json
import os
import sys

import jax

jax.config.update("jax_num_cpu_devices", 2)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from string_arrays_cases import run, run_two_devices  # noqa: E402

with open(os.path.join(DATA, "string_arrays_reference.json"), "w") as f:
    json.dump({**run(jax), **run_two_devices(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
