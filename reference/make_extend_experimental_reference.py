"""Record tests/data/extend_experimental_reference.json from real JAX 0.10.2 (run by hand,
not by the test suite):

    .venv-jax/bin/python reference/make_extend_experimental_reference.py

It runs the programs of tests/data/extend_experimental_cases.py (jax.extend.core's custom
interpreter and Primitive, jax.experimental.io_callback, print_saved_residuals, shardings,
typed keys, ShapeDtypeStruct) with JAX; tests/test_extend_experimental.py runs the same
programs with jxkernel and compares.
"""
import json
import os
import sys

import jax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import extend_experimental_cases  # noqa: E402


def main():
    results = extend_experimental_cases.run(jax)
    results["jax_version"] = jax.__version__
    path = os.path.join(HERE, "..", "tests", "data", "extend_experimental_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
