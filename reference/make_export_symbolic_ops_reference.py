"""Write tests/data/export_symbolic_ops_reference.json from real JAX 0.10.2 (run by hand,
never by the tests):

    .venv-jax/bin/python reference/make_export_symbolic_ops_reference.py

What `run` in tests/data/export_symbolic_ops_cases.py answers: convolutions, jnp.tril/
tril_indices/nonzero/bincount/pad/split/linspace (and later cases) exported with symbolic
shapes: their result shapes as text and the exported functions' values at one concrete size,
or JAX's error where it refuses."""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from export_symbolic_ops_cases import run  # noqa: E402

with open(os.path.join(DATA, "export_symbolic_ops_reference.json"), "w") as f:
    json.dump({**run(jax), "jax_version": jax.__version__}, f, indent=1, sort_keys=True)
    f.write("\n")
