"""Record what JAX 0.10.2 answers for tests/data/open_inputs_cases.py (8 simulated CPU devices):
host data passed to a jit whose body constrains it, its parameter left to XLA's propagation.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_open_inputs_reference.py

writes tests/data/open_inputs_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "open_inputs_cases", "open_inputs_reference.json")
