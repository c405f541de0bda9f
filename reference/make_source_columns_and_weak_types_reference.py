"""Record tests/data/source_columns_and_weak_types_reference.json from real JAX 0.10.2 (run by
hand, not by the test suite):

    .venv-jax/bin/python reference/make_source_columns_and_weak_types_reference.py

It runs the programs of tests/data/source_columns_and_weak_types_cases.py (source locations
with their columns, weak types of scan/while/fori/cond/switch outputs and tangents) with JAX;
tests/test_source_columns_and_weak_types.py runs the same programs with jxkernel and compares.
"""
import json
import os
import sys

import jax
import jax.ad_checkpoint  # noqa: F401  (the cases reach print_saved_residuals through it)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))
import source_columns_and_weak_types_cases as cases  # noqa: E402


def main():
    results = cases.run(jax)
    results["jax_version"] = jax.__version__
    path = os.path.join(HERE, "..", "tests", "data", "source_columns_and_weak_types_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
