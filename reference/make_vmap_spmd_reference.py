"""Record what JAX 0.10.2 answers for tests/data/vmap_spmd_cases.py (8 simulated CPU devices):
vmap's spmd_axis_name through a sharding constraint, a jit with shardings and a shard_map.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_vmap_spmd_reference.py

writes tests/data/vmap_spmd_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "vmap_spmd_cases", "vmap_spmd_reference.json")
