"""Write tests/data/tutorial_notes_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_tutorial_notes_reference.py

For each case of tests/data/tutorial_notes_cases.py (a cell of JAX's tutorials, verbatim):
what it printed, and the value of each of its CHECKS (calls made after it) as a list.
"""
import contextlib
import io
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from tutorial_notes_cases import CASES, CHECKS  # noqa: E402


def main():
    out = {"jax": jax.__version__, "cases": {}}
    for name, source in CASES.items():
        names = {"jax": jax, "jnp": jnp, "jit": jax.jit}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"<{name}>", "exec"), names)
        out["cases"][name] = {
            "printed": printed.getvalue().splitlines(),
            "checks": [np.asarray(eval(call, names)).tolist() for call in CHECKS[name]]}
    with open(os.path.join(DATA, "tutorial_notes_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
