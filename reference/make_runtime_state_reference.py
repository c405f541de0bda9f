"""Record which transfers JAX 0.10.2's transfer guards refuse, on two CPU devices, in
tests/data/runtime_state_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_runtime_state_reference.py

The cases are tests/data/runtime_state_cases.py; tests/xla/test_runtime_state.py runs the same
file with jxkernel (JXKERNEL_CPU_DEVICES=2) and compares.
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"   # before jax starts

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "runtime_state_cases", "runtime_state_reference.json")
