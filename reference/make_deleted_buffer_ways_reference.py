"""Write tests/data/deleted_buffer_ways_reference.json from real JAX 0.10.2 on two CPU devices
(run by hand, never by the tests):

    .venv-jax/bin/python reference/make_deleted_buffer_ways_reference.py

What `run` in tests/data/deleted_buffer_ways.py answers: JAX's class and message for each way
of reaching a jaxlib call that crashes on a `.delete()`d buffer."""
import json
import os
import sys

import jax

jax.config.update("jax_num_cpu_devices", 2)
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from deleted_buffer_ways import run  # noqa: E402

with open(os.path.join(DATA, "deleted_buffer_ways_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
