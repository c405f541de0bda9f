"""Write tests/data/jax_tests_devices_reference.json from real JAX 0.10.2 (run by hand, never
by the tests), on 4 simulated CPU devices:

    .venv-jax/bin/python reference/make_jax_tests_devices_reference.py

What `run` and `run_devices` in tests/data/jax_tests_devices_cases.py answer: what JAX's
device, runtime and interop test files rely on (`__cuda_array_interface__` off a GPU, the
dtypes `jax._src.dlpack` lists, `jax._src.util.cache`, duck-typed arrays in jnp, the device
count option's default) and `shard_alike` over a mesh."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_tests_devices_cases import defaults, run, run_devices  # noqa: E402

with open(os.path.join(DATA, "jax_tests_devices_reference.json"), "w") as f:
    json.dump({"defaults": defaults(jax), **run(jax), "devices": run_devices(jax),
               "jax_version": jax.__version__}, f,
              indent=1, sort_keys=True)
    f.write("\n")
