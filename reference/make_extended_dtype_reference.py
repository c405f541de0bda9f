"""Record JAX 0.10.2's answers to tests/data/extended_dtype_cases.py (extended dtypes defined
as a user defines them, through jit, vmap, grad, scan and device_put) in
tests/data/extended_dtype_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_extended_dtype_reference.py

tests/core/test_extended_dtypes.py runs the same cases on jxkernel and compares the text.
"""
import json
import os
import sys
import types

import jax
import jax.numpy  # noqa: F401
from jax._src import core, dtypes, earray
from jax._src.interpreters import pxla

from recording import DATA

sys.path.insert(0, DATA)
from extended_dtype_cases import run_cases  # noqa: E402

if __name__ == "__main__":
    src = types.SimpleNamespace(core=core, dtypes=dtypes, earray=earray, pxla=pxla)
    results = run_cases(jax, src)
    results["jax_version"] = jax.__version__
    path = os.path.join(DATA, "extended_dtype_reference.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")
