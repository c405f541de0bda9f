"""Record JAX 0.10.2's answers to tests/data/einsum_scan_cards_cases.py into
tests/data/einsum_scan_cards_reference.json (tests/notebook/test_einsum_scan_cards.py
compares): jnp.einsum's error for subscripts giving one letter two sizes, where its traceback
ends, and each one-swap transpose of each operand run; lax.scan's and lax.map's error with
neither xs nor length, and the line with length=; the code vmap-sizes cards gave where no
in_axes was checked, run. Run by hand, never by the tests:

    .venv-jax/bin/python reference/make_einsum_scan_cards_reference.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))

import jax  # noqa: E402
from einsum_scan_cards_cases import run  # noqa: E402

assert jax.__version__ == "0.10.2", jax.__version__
answers = run(jax)
path = os.path.join(HERE, "..", "tests", "data", "einsum_scan_cards_reference.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": answers}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(answers)} cases -> {os.path.relpath(path)}")
