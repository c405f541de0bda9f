"""Generate example_libraries_reference.npz from real JAX 0.10.2 (run by hand, not by the tests):

    .venv-jax/bin/python reference/make_example_libraries_reference.py

Runs every program of tests/data/example_libraries_cases.py with jax, jax.numpy and
jax.example_libraries' stax and optimizers, and stores, per program `name`: each leaf of its
result under "name/j", the leaf's kind under "name/j:kind" (a dtype name with "weak" appended
for weakly typed arrays, or the Python type of a Python number), and str() of the result's
tree structure under "name:tree".
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.example_libraries import optimizers, stax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "tests", "data"), os.path.join(HERE, "..", "tests", "support")]
import example_libraries_cases  # noqa: E402


def leaf_kind(leaf):
    if isinstance(leaf, (bool, int, float, complex, str)):
        return type(leaf).__name__
    return np.dtype(leaf.dtype).name + (" weak" if getattr(leaf, "weak_type", False) else "")


def store(out, name, result):
    leaves, tree = jax.tree.flatten(result)
    out[f"{name}:tree"] = np.array(str(tree))
    for j, leaf in enumerate(leaves):
        out[f"{name}/{j}"] = np.asarray(leaf)
        out[f"{name}/{j}:kind"] = np.array(leaf_kind(leaf))


def main():
    out = {}
    for program in example_libraries_cases.PROGRAMS:
        store(out, program.__name__, program(jax, jnp, stax, optimizers))
    path = os.path.join(HERE, "..", "tests", "data", "example_libraries_reference.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(example_libraries_cases.PROGRAMS)} programs to {path}")


if __name__ == "__main__":
    main()
