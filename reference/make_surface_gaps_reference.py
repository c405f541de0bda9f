"""Write tests/data/surface_gaps_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_surface_gaps_reference.py

Runs tests/data/surface_gaps_cases.py on one CPU device: `mistakes` (each case's exception
class and message, or its result's sharding), `class_paths` (the sharding classes' module,
names, reprs and pickles), `meshless_args` (the mesh jax.typeof gives jit's arguments
under set_mesh) and `out_sharding_jaxprs` (jaxprs of contractions given out_sharding=)."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from surface_gaps_cases import (class_paths, meshless_args, out_sharding_jaxprs,  # noqa: E402
                                run_mistakes)

assert jax.device_count() == 1, "record on one CPU device (unset XLA_FLAGS)"
result = {"mistakes": run_mistakes(jax), "class_paths": class_paths(jax),
          "meshless_args": meshless_args(jax), "out_sharding_jaxprs": out_sharding_jaxprs(jax)}
with open(os.path.join(DATA, "surface_gaps_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
