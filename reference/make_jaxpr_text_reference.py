"""Write tests/data/jaxpr_text_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_jaxpr_text_reference.py

For each program of tests/data/jaxpr_text_cases.py: the text `str(jax.make_jaxpr(f)(*args))`
prints (tests/transforms/test_jaxpr_text.py compares jxkernel's with it)."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jaxpr_text_cases import cases  # noqa: E402

result = {name: str(jax.make_jaxpr(f)(*args)) for name, (f, args) in cases(jax).items()}
with open(os.path.join(DATA, "jaxpr_text_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(result), "programs")
