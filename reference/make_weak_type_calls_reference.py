"""Write tests/data/weak_type_calls_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_weak_type_calls_reference.py

For each case of tests/data/weak_type_calls_cases.py (a weak type, or a dtype, cast at a call): the program and the program with the fix
pasted, each run from a file of its own with `jax_explain_cache_misses` on; recorded are the
tracing-cache misses of the program's functions (their count: a trace each) and the "* at"
lines JAX writes for them, and whether `jnp.asarray(1.0)` is weak (the rewrite a fix must not
advise).
"""
import json
import os
import sys
import tempfile

import jax
import jax.numpy as jnp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from weak_type_calls_cases import CASES, DTYPE_CASES, pasted  # noqa: E402
from recording import at_lines, cache_misses  # noqa: E402


def traces(source, tag):
    with tempfile.NamedTemporaryFile("w", suffix=f"_{tag}.py", delete=False) as f:
        f.write(source)
    try:
        misses = cache_misses(jax, source, f.name, {"jax": jax, "jnp": jnp})
    finally:
        os.unlink(f.name)
    return {"traces": len(misses), "lines": at_lines(misses)}


def main():
    jax.config.update("jax_explain_cache_misses", True)
    out = {"jax": jax.__version__,
           "asarray_of_a_float_is_weak": bool(jnp.asarray(1.0).weak_type),
           "asarray_with_dtype_is_weak": bool(jnp.asarray(1.0, jnp.float32).weak_type),
           "cases": {}}
    for name, (_, program, _, _) in {**CASES, **DTYPE_CASES}.items():
        out["cases"][name] = {"program": traces(program, name),
                              "pasted": traces(pasted(name), name + "_pasted")}
    with open(os.path.join(DATA, "weak_type_calls_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
