"""Write tests/data/traceback_filter_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_traceback_filter_reference.py

What tests/data/traceback_filter_program.py (a learner's script failing inside jit, grad,
vmap, scan, a custom_vjp's backward pass and jit(f).lower) shows of its tracebacks under
each JAX_TRACEBACK_FILTERING mode, each run in a fresh process as a script."""
import json
import os
import subprocess
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
MODES = ("off", "tracebackhide", "remove_frames", "quiet_remove_frames")

answers = {}
for mode in MODES:
    out = subprocess.run([sys.executable, os.path.join(DATA, "traceback_filter_program.py"),
                          "jax"], env={**os.environ, "JAX_TRACEBACK_FILTERING": mode,
                                       "JAX_PLATFORMS": "cpu"},
                         capture_output=True, text=True, check=True).stdout
    answers[mode] = json.loads(out.strip().splitlines()[-1])
with open(os.path.join(DATA, "traceback_filter_reference.json"), "w") as f:
    json.dump(answers, f, indent=1, sort_keys=True)
    f.write("\n")
