"""Record what JAX 0.10.2 answers for tests/data/remat_shard_map_cases.py (8 simulated CPU
devices): jax.checkpoint around and inside a shard_map, by policy, its saved residuals and
gradient.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_remat_shard_map_reference.py

writes tests/data/remat_shard_map_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "remat_shard_map_cases", "remat_shard_map_reference.json")
