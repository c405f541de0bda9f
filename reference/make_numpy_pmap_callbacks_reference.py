"""Write tests/data/numpy_pmap_callbacks_reference.json from real JAX 0.10.2 (run by hand,
never by the tests), on 4 simulated CPU devices:

    .venv-jax/bin/python reference/make_numpy_pmap_callbacks_reference.py

Host callbacks in a pmap or shard_map body, each device's called with its own block
(tests/data/numpy_pmap_callbacks_cases.py)."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from numpy_pmap_callbacks_cases import run  # noqa: E402

with open(os.path.join(DATA, "numpy_pmap_callbacks_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": run(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
