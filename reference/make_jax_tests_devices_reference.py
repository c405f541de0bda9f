"""Generate tests/data/jax_tests_devices_reference.json from real JAX 0.10.2 (run by hand, not
by the test suite):

    .venv-jax/bin/python reference/make_jax_tests_devices_reference.py

The cases (what JAX's device, runtime and interop test files rely on: `__cuda_array_interface__`
off a GPU, the dtypes `jax._src.dlpack` lists, `jax._src.util.cache`) are in
tests/data/jax_tests_devices_cases.py.
"""

import jax
from recording import record_json

record_json(jax, "jax_tests_devices_cases", "jax_tests_devices_reference.json")
