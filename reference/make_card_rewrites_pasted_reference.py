"""Write tests/data/card_rewrites_pasted_reference.json from real JAX 0.10.2 (run by hand,
never by the tests):

    .venv-jax/bin/python reference/make_card_rewrites_pasted_reference.py

For each case of tests/data/card_rewrites_pasted_cases.py: the learner's program (its error
class, None where it runs) and the program with the error card's code pasted (PASTED: `_r`
as lists of numbers, or the error class), each run from a file of its own; and each
PATTERNS program's error class, and each REFUSED program's (a fix no card may offer).
"""
import json
import os
import sys
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from card_rewrites_pasted_cases import CASES, PASTED, PATTERNS, REFUSED  # noqa: E402


def run(source, tag):
    with tempfile.NamedTemporaryFile("w", suffix=f"_{tag}.py", delete=False) as f:
        f.write(source)
    names = {"jax": jax, "jnp": jnp, "__name__": tag}
    try:
        exec(compile(source, f.name, "exec"), names)
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__}
    finally:
        os.unlink(f.name)
        jax.config.update("jax_debug_key_reuse", False)
    return {"value": jax.tree_util.tree_map(lambda a: np.asarray(a).tolist(), names["_r"])}


def main():
    out = {"jax": jax.__version__, "cases": {}}
    for name, (program, _, _) in CASES.items():
        out["cases"][name] = {"program": run(program, name).get("error"),
                              "pasted": run(PASTED[name], name + "_pasted")}
    out["patterns"] = {name: run(program, name).get("error")
                       for name, program in PATTERNS.items()}
    out["refused"] = {name: run(program, name).get("error")
                      for name, program in REFUSED.items()}
    with open(os.path.join(DATA, "card_rewrites_pasted_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
