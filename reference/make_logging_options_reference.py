"""Write tests/data/logging_options_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_logging_options_reference.py

JAX's logging options and the loggers of its compile lines (tests/data/logging_options_cases.py):
in process, and two programs run with JAX_LOGGING_LEVEL=DEBUG."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
import logging_options_cases as cases  # noqa: E402

with open(os.path.join(DATA, "logging_options_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": cases.run(jax),
               "subprocess": cases.in_subprocess(sys.executable, "import jax")}, f, indent=1)
    f.write("\n")
