"""Write tests/data/jax_tests_misc_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_jax_tests_misc_reference.py

What `run` in tests/data/jax_tests_misc_cases.py answers: what JAX's smaller runtime and
tooling test files rely on (the batch-partitioning attributes of LAPACK's calls)."""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# as the tests run (tests/conftest.py): XLA's fusions change the last bit of
# jax.random.uniform's scaling, which the LSTM's weights are compared to bit for bit
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
import jax  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_tests_misc_cases import run  # noqa: E402

with open(os.path.join(DATA, "jax_tests_misc_reference.json"), "w") as f:
    json.dump({**run(jax), "jax_version": jax.__version__}, f, indent=1, sort_keys=True)
    f.write("\n")
