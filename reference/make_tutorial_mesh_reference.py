"""Record JAX 0.10.2's cache misses and compiles of `jax.jit(loss)` in the shard_map tutorial's
cells 52-59 and after them (tests/data/tutorial_mesh_cases.py: 8 simulated CPU devices):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_tutorial_mesh_reference.py

writes tests/data/tutorial_mesh_reference.json.
"""
import logging
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402
import tutorial_mesh_cases  # noqa: E402  (tests/data, put on the path by recording)

compiled = []


class _Compiles(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("Compiling jit(loss)"):
            compiled.append(1)


logging.getLogger("jax").addHandler(_Compiles(logging.DEBUG))
jax.config.update("jax_log_compiles", True)
run = tutorial_mesh_cases.run
tutorial_mesh_cases.run = lambda jax: run(jax, compiles=lambda: len(compiled))
record_json(jax, "tutorial_mesh_cases", "tutorial_mesh_reference.json")
