"""Record tests/data/partitioned_gaps_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_partitioned_gaps_reference.py

It runs tests/data/partitioned_gaps_cases.py's `run` (one CPU device) here and its `run_mesh`
in a child process with 8 simulated CPU devices; tests/sharding/test_partitioned_gaps.py runs
the same cases with jxkernel and compares.
"""
import json
import os
import subprocess
import sys

from recording import DATA

MESH = """
import json, sys
sys.path[:0] = sys.argv[1:]
import jax, partitioned_gaps_cases as cases
print(json.dumps(cases.run_mesh(jax)))
"""

if __name__ == "__main__":
    import jax
    import partitioned_gaps_cases as cases
    results = {"run": cases.run(jax)}
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    child = subprocess.run([sys.executable, "-c", MESH, DATA, os.path.join(DATA, "..")],
                           env=env, capture_output=True, text=True, check=True)
    results["run_mesh"] = json.loads(child.stdout.strip().splitlines()[-1])
    results["jax_version"] = jax.__version__
    with open(os.path.join(DATA, "partitioned_gaps_reference.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote partitioned_gaps_reference.json")
