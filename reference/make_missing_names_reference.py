"""Record tests/data/missing_names_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_missing_names_reference.py

It runs tests/data/missing_names_cases.py (lax's total-order comparisons, device_put_p, qdwh,
scaled_dot, tokens, ragged_all_to_all, psend, precv, jax.ad, and the two config context
managers) with JAX on 4 CPU devices, and the garbage-collection guard's program in a child
process (its message goes to stderr); tests/jax_compat/test_missing_names.py runs the same
cases with jxkernel and compares.
"""
import json
import os
import subprocess
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax  # noqa: E402
from recording import DATA  # noqa: E402
import missing_names_cases as cases  # noqa: E402

results = {"run": cases.run(jax), "run_mesh": cases.run_mesh(jax)}
child = subprocess.run([sys.executable, "-c", cases.gc_guard_program("jax")],
                       capture_output=True, text=True, check=True)
results["gc_guard_stderr"] = [line for line in child.stderr.splitlines()
                              if "garbage collector" in line][:1]
results["jax_version"] = jax.__version__
with open(os.path.join(DATA, "missing_names_reference.json"), "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote missing_names_reference.json")
