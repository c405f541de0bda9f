"""Record JAX 0.10.2's jax_explain_cache_misses lines for a type that changed under set_mesh
(tests/data/recompile_mesh_cases.py: 4 simulated CPU devices, a mesh of Explicit axes):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        .venv-jax/bin/python reference/make_recompile_mesh_reference.py

writes tests/data/recompile_mesh_reference.json.
"""
import os

assert "device_count=4" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "recompile_mesh_cases", "recompile_mesh_reference.json")
