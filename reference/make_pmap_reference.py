"""Record what JAX 0.10.2 answers for tests/data/pmap_cases.py (8 simulated CPU devices):
pmap's values, result types and shardings, jaxprs of pmap and jit(pmap), in_axes/out_axes,
static arguments, collectives, nesting, grad, vmap, donation, device_put_replicated/sharded
and errors.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_pmap_reference.py

writes tests/data/pmap_reference.json.
"""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import jax  # noqa: E402
from recording import record_json  # noqa: E402

record_json(jax, "pmap_cases", "pmap_reference.json")
