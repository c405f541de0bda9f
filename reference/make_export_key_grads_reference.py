"""Record what JAX 0.10.2 answers for tests/data/export_key_grads_cases.py (8 simulated CPU
devices): gradients through Exported.call with typed keys among the results, and exports over
Explicit mesh axes called eagerly and under jit.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_export_key_grads_reference.py

writes tests/data/export_key_grads_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "export_key_grads_cases", "export_key_grads_reference.json")
