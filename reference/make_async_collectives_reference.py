"""Record JAX 0.10.2's answers to tests/data/async_collectives_cases.py into
tests/data/async_collectives_reference.json (tests/sharding/test_async_collectives.py
compares).

    .venv-jax/bin/python reference/make_async_collectives_reference.py
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))

import jax  # noqa: E402
import async_collectives_cases  # noqa: E402

assert jax.__version__ == "0.10.2", jax.__version__
jax.config.update("jax_num_cpu_devices", 8)
answers = async_collectives_cases.run(jax)
path = os.path.join(HERE, "..", "tests", "data", "async_collectives_reference.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": answers}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(answers)} cases -> {os.path.relpath(path)}")
