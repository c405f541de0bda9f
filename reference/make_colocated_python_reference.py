"""Record JAX 0.10.2's answers to tests/data/colocated_python_cases.py into
tests/data/colocated_python_reference.json (tests/api/test_colocated_python.py compares).

    .venv-jax/bin/python reference/make_colocated_python_reference.py

Needs JAX 0.10.2 on the CPU with cloudpickle (colocated_python pickles the functions).
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))

import jax  # noqa: E402
import colocated_python_cases  # noqa: E402

assert jax.__version__ == "0.10.2", jax.__version__
answers = colocated_python_cases.run(jax)
path = os.path.join(HERE, "..", "tests", "data", "colocated_python_reference.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": answers}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(answers)} cases -> {os.path.relpath(path)}")
