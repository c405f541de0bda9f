"""Record what JAX 0.10.2 answers for tests/data/jit_context_mesh_cases.py (8 simulated CPU devices):
jit and pjit given bare PartitionSpecs under `with mesh:` and set_mesh.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_jit_context_mesh_reference.py

writes tests/data/jit_context_mesh_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "jit_context_mesh_cases", "jit_context_mesh_reference.json")
