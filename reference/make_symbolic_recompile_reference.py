"""Write tests/data/symbolic_recompile_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_symbolic_recompile_reference.py

Runs each program of tests/data/symbolic_recompile_cases.py with `jax_explain_cache_misses` on
and records, for its function g, how many tracing-cache misses JAX logs and their "* at" lines.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
from jax import export

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from symbolic_recompile_cases import PROGRAMS  # noqa: E402
from recording import at_lines, cache_misses  # noqa: E402


def main():
    jax.config.update("jax_explain_cache_misses", True)
    out = {"jax": jax.__version__, "programs": {}}
    for name, source in PROGRAMS.items():
        file = f"<symbolic:{name}>"
        misses = cache_misses(jax, source, file, {"jax": jax, "jnp": jnp, "export": export})
        out["programs"][name] = {"traces": len(misses), "lines": at_lines(misses)}
    with open(os.path.join(DATA, "symbolic_recompile_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
