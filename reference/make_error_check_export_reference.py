"""Write tests/data/error_check_export_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_error_check_export_reference.py

error_check.wrap_for_export under jax.export (tests/data/error_check_export_cases.py): the
exported program's results and the error its imported call raises."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import error_check_export_cases as cases  # noqa: E402

with open(os.path.join(DATA, "error_check_export_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax)}, f, indent=1)
    f.write("\n")
