"""Write tests/data/jax_tests_aot_reference.json from real JAX 0.10.2 (run by hand, never by
the tests), on 2 simulated CPU devices:

    .venv-jax/bin/python reference/make_jax_tests_aot_reference.py

What `run` and `run_devices` in tests/data/jax_tests_aot_cases.py answer: a failing host
callback's log line, io_callback's effects and the transformations they rule out,
Lowered.as_text("hlo"), and host callbacks in programs partitioned over a mesh."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_tests_aot_cases import run, run_devices  # noqa: E402

with open(os.path.join(DATA, "jax_tests_aot_reference.json"), "w") as f:
    json.dump({**run(jax), "devices": run_devices(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
