"""Record what JAX 0.10.2 answers for tests/data/shard_map_cases.py (8 simulated CPU devices):
each collective inside shard_map on 1-D and 2-D meshes, output specs, grad and vmap through
shard_map, error messages and facts of the lowered module; and for
tests/data/shard_map_vma_cases.py: the varying-manual-axes types inside a body (check_vma),
jaxprs with pvary, gradients inside and outside a body, pcast and its errors.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_shard_map_reference.py

writes tests/data/shard_map_reference.json and tests/data/shard_map_vma_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "shard_map_cases", "shard_map_reference.json")
record_json(jax, "shard_map_vma_cases", "shard_map_vma_reference.json")
