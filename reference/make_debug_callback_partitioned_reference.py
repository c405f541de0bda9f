"""Write tests/data/debug_callback_partitioned_reference.json from real JAX 0.10.2 (run by hand,
never by the tests), on 2 simulated CPU devices:

    .venv-jax/bin/python reference/make_debug_callback_partitioned_reference.py

How often, and with what, jax.debug.callback(..., partitioned=True) calls its function in a
jit over 2 devices (tests/data/debug_callback_partitioned_cases.py)."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from debug_callback_partitioned_cases import run  # noqa: E402

with open(os.path.join(DATA, "debug_callback_partitioned_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": run(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
