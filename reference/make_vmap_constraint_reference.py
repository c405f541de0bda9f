"""Record what JAX 0.10.2 answers for tests/data/vmap_constraint_cases.py (8 simulated CPU
devices): vmap of a sharding constraint without spmd_axis_name, and with a batch its axis does
not divide.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_vmap_constraint_reference.py

writes tests/data/vmap_constraint_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "vmap_constraint_cases", "vmap_constraint_reference.json")
