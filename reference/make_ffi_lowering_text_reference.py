"""Write tests/data/ffi_lowering_text_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_ffi_lowering_text_reference.py

FFI custom calls as JAX lowers them (tests/data/ffi_lowering_text_cases.py): the custom_call
lines of each lowered module and the attribute read back from compiler_ir()."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import ffi_lowering_text_cases as cases  # noqa: E402

with open(os.path.join(DATA, "ffi_lowering_text_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1)
    f.write("\n")
