"""Record what JAX 0.10.2 answers for tests/data/collective_groups_cases.py (8 simulated CPU devices):
axis_index_groups in shard_map bodies (checked or not) and under vmap.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_collective_groups_reference.py

writes tests/data/collective_groups_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "collective_groups_cases", "collective_groups_reference.json")
