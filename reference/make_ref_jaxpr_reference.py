"""Generate tests/data/ref_jaxprs.json from real JAX 0.10.2 (run by hand, not by the suite):

    .venv-jax/bin/python reference/make_ref_jaxpr_reference.py

For each case of tests/data/ref_jaxpr_cases.py: make_jaxpr's text (before running, so the Refs
hold their first values), then the function's outputs and the Refs' final values after one
run (under jit where JAX cannot run it eagerly: empty_ref), as nested lists with dtypes."""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from ref_jaxpr_cases import cases  # noqa: E402


def encode(x):
    x = np.asarray(x)
    return {"value": x.tolist(), "dtype": x.dtype.name}


record = {"jax_version": jax.__version__, "cases": {}}
for name, build in cases(jax, jnp).items():
    fun, args, refs = build()
    try:
        text = str(jax.make_jaxpr(fun)(*args))
    except Exception as e:                      # recorded: the test says what jxkernel does
        text = f"{type(e).__name__}: {e}"
    try:
        outs = jax.tree_util.tree_leaves(fun(*args))
    except NotImplementedError:                 # (empty_ref runs only under jit in JAX)
        fun, args, refs = build()
        outs = jax.tree_util.tree_leaves(jax.jit(fun)(*args))
    record["cases"][name] = {"jaxpr": text, "outs": [encode(o) for o in outs],
                             "refs": [encode(r[...]) for r in refs]}
with open(os.path.join(HERE, "ref_jaxprs.json"), "w") as f:
    json.dump(record, f, indent=1)
print(f"{len(record['cases'])} cases written")
