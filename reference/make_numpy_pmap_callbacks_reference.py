"""Write tests/data/numpy_pmap_callbacks_reference.json from real JAX 0.10.2 (run by hand,
never by the tests), on 4 simulated CPU devices:

    .venv-jax/bin/python reference/make_numpy_pmap_callbacks_reference.py

Host callbacks in a pmap or shard_map body, each device's called with its own block
(tests/data/numpy_pmap_callbacks_cases.py), and collectives with axis_index_groups in a pmap
(tests/data/numpy_pmap_groups_cases.py, into numpy_pmap_groups_reference.json), and results
replicated over devices that computed them differently (tests/data/numpy_pmap_out_axes_cases.py,
into numpy_pmap_out_axes_reference.json)."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import numpy_pmap_callbacks_cases  # noqa: E402
import numpy_pmap_groups_cases  # noqa: E402
import numpy_pmap_out_axes_cases  # noqa: E402

for cases, name in ((numpy_pmap_callbacks_cases, "numpy_pmap_callbacks_reference.json"),
                    (numpy_pmap_groups_cases, "numpy_pmap_groups_reference.json"),
                    (numpy_pmap_out_axes_cases, "numpy_pmap_out_axes_reference.json")):
    with open(os.path.join(DATA, name), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
