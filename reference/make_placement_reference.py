"""Record where JAX 0.10.2 puts results and whether they are committed, on four CPU devices,
in tests/data/placement_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_placement_reference.py

The cases are tests/data/placement_cases.py; tests/xla/test_dispatch.py runs the same file
with jxkernel (JXKERNEL_CPU_DEVICES=4) and compares.
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"   # before jax starts

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "placement_cases", "placement_reference.json")
