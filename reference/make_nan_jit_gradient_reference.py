"""Record what JAX 0.10.2 gives for gradients that hold NaN where the function's value is
finite, taken under jit or vmap (`jax.jit(jax.grad(f))(0.)`, a jitted step taking the
gradient, `jax.vmap(jax.grad(f))(xs)`), in tests/data/nan_jit_gradient_reference.json (run by
hand, not by the test suite):

    PYTHONPATH= .venv-jax/bin/python reference/make_nan_jit_gradient_reference.py

The cases are tests/data/nan_jit_gradient_cases.py: each program's result and its result
with the line the note rewrites (`run`), and what jax_debug_nans makes of it (`debug_nans`,
each case in a process of its own). tests/notebook/test_nan_jit_notes.py checks the note's
claims and fixes against these.
"""
import json
import os
import sys

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import DATA, child_answer  # noqa: E402

import nan_jit_gradient_cases as cases  # noqa: E402  (tests/data, put on the path by recording)

if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(cases.debug_nans(jax, sys.argv[2])))
        sys.exit()
    results = cases.run(jax)
    for name in [*cases.CASES, *cases.VALUE_CASES]:
        results[name]["debug_nans"] = child_answer(__file__, name)
    results["jax_version"] = jax.__version__
    path = os.path.join(DATA, "nan_jit_gradient_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")
