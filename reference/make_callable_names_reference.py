"""Write tests/data/callable_names_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_callable_names_reference.py

What `run` in tests/data/callable_names_cases.py answers: the name JAX gives a jitted object
with __call__, a partial, a bound method and a builtin in its explain log, its compile log,
the jaxpr, the lowered module and the jit's __name__; and `jnp_compiles`, the compile log's
names of a few jnp functions' jits."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from callable_names_cases import jnp_compiles, run  # noqa: E402

with open(os.path.join(DATA, "callable_names_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": run(jax),
               "jnp_compiles": jnp_compiles(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
