"""Record tests/data/ffi_lapack_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ffi_lapack_reference.py

Each case of tests/data/ffi_lapack_cases.py in a fresh process of its own (what a fresh
process has registered), compared by tests/export/test_ffi_lapack.py.
"""
import json
import os
import sys

from recording import DATA, child_answer

if len(sys.argv) == 3 and sys.argv[1] == "--child":
    import jax
    import ffi_lapack_cases
    print(json.dumps(ffi_lapack_cases.case(jax, sys.argv[2])))
else:
    import jax
    got = {name: child_answer(__file__, name) for name in ("compiles", "values")}
    got["jax_version"] = jax.__version__
    with open(os.path.join(DATA, "ffi_lapack_reference.json"), "w") as f:
        json.dump(got, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote tests/data/ffi_lapack_reference.json")
