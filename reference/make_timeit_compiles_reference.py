"""Write tests/data/timeit_compiles_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_timeit_compiles_reference.py

What `run` in tests/data/timeit_compiles_cases.py answers: how many compiles
jax_log_compiles logs in a statement's warm-up run and in its three timed runs
(tests/notebook/test_timeit_compiles_against_jax.py holds %timeit's lines to them); and
`cell_compiles`: how many it logs over a `%%timeit -n 3 -r 1` cell of each statement in
IPython, which the cell's note counts ("cell", added to the same file)."""
import json
import os

import jax
from recording import DATA, record_json

import timeit_compiles_cases

record_json(jax, "timeit_compiles_cases", "timeit_compiles_reference.json")
path = os.path.join(DATA, "timeit_compiles_reference.json")
with open(path) as f:
    recorded = json.load(f)
recorded["cell"] = timeit_compiles_cases.cell_compiles(jax)
with open(path, "w") as f:
    json.dump(recorded, f, indent=1, sort_keys=True)
    f.write("\n")
