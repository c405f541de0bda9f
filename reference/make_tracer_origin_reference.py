"""Write tests/data/tracer_origin_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_tracer_origin_reference.py

What `run` in tests/data/tracer_origin_cases.py answers: where JAX's tracer errors say a
value came from (the arguments it depends on, or the operations that made it a tracer), the
frames an UnexpectedTracerError lists under jax_tracer_error_num_traceback_frames, and the
tracers jax.checking_leaks lists."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from tracer_origin_cases import run  # noqa: E402

with open(os.path.join(DATA, "tracer_origin_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
