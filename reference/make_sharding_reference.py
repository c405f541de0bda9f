"""Record what JAX 0.10.2 answers for tests/data/sharding_cases.py (8 simulated CPU devices):
specs, shard indices, visualize_array_sharding's picture, jit's output shardings and values.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_sharding_reference.py

writes tests/data/sharding_reference.json. The picture needs `rich` in .venv-jax
(`.venv-jax/bin/pip install rich`); JAX draws it without colour when output is not a terminal.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "sharding_cases", "sharding_reference.json")
