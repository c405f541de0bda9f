"""Record JAX 0.10.2's answers to tests/data/array_serialization_cases.py into
tests/data/array_serialization_reference.json (tests/api/test_array_serialization.py compares).

    .venv-jax/bin/python reference/make_array_serialization_reference.py

Needs JAX 0.10.2 on the CPU with tensorstore (`.venv-jax/bin/python -m pip install
tensorstore`: scripts/jax_venv.sh leaves it out, as JAX's own requirements do); runs on two
simulated CPU devices, which it asks XLA for itself. Recorded with tensorstore 0.1.86.
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=2").strip()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))

import jax  # noqa: E402
import array_serialization_cases  # noqa: E402

assert jax.__version__ == "0.10.2", jax.__version__
answers = array_serialization_cases.run(jax)
path = os.path.join(HERE, "..", "tests", "data", "array_serialization_reference.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": answers}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(answers)} cases -> {os.path.relpath(path)}")
