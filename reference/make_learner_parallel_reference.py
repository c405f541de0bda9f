"""Write tests/data/learner_parallel_reference.json from real JAX 0.10.2 on 8 CPU devices (run
by hand, never by the tests):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_learner_parallel_reference.py

What `run` in tests/data/learner_parallel_cases.py answers: JAX's errors for a learner's
collectives outside shard_map or over an axis the mesh has not, and what the fixes the
unbound-axis card advises compute."""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "learner_parallel_cases", "learner_parallel_reference.json")
