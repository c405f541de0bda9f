"""Record what JAX 0.10.2 answers for tests/data/collectives_axes_cases.py (collectives over
several mesh axes in shard_map, 8 simulated CPU devices):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_collectives_axes_reference.py

writes tests/data/collectives_axes_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "collectives_axes_cases", "collectives_axes_reference.json")
