"""Record what JAX 0.10.2 answers for tests/data/explicit_sharding_cases.py (8 simulated CPU
devices, a mesh with Explicit axes): the types (`float32[8@x]`) operations give eagerly and in
jaxprs, jit's results' shardings and values, out_sharding=, reshard, and the errors.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_explicit_sharding_reference.py

writes tests/data/explicit_sharding_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "explicit_sharding_cases", "explicit_sharding_reference.json")
