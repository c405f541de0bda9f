"""Record JAX 0.10.2's answers to tests/data/hijax_cases.py (high types, HiPrimitives, Box) in
tests/data/hijax_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_hijax_reference.py

tests/jax_compat/test_hijax.py runs the same cases on jxkernel and compares the text.
"""
import json
import os
import sys

import jax
import jax.numpy  # noqa: F401
from jax._src import hijax
from jax.experimental import cur_qdd
from jax.experimental import hijax as public

from recording import DATA

sys.path.insert(0, DATA)
from hijax_cases import run_cases  # noqa: E402

if __name__ == "__main__":
    results = run_cases(jax, hijax, cur_qdd, public)
    path = os.path.join(DATA, "hijax_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")
