"""Write tests/data/learner_parallel_reference.json from real JAX 0.10.2 on 8 CPU devices (run
by hand, never by the tests):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        .venv-jax/bin/python reference/make_learner_parallel_reference.py

What `run` in tests/data/learner_parallel_cases.py answers: JAX's errors for a learner's
collectives outside shard_map or over an axis the mesh has not, and what the fixes the
unbound-axis card advises compute."""
import os

assert "device_count=8" in os.environ.get("XLA_FLAGS", ""), __doc__

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
from recording import DATA, record_json  # noqa: E402

record_json(jax, "learner_parallel_cases", "learner_parallel_reference.json")
# the late-device-count card's rewrite, in a fresh process (the count is fixed per process)
import learner_parallel_cases as cases  # noqa: E402
path = os.path.join(DATA, "learner_parallel_reference.json")
with open(path) as f:
    recorded = json.load(f)
count = subprocess.run([sys.executable, "-c", cases.REWRITES["late_device_count"] +
                        cases.COUNT_AFTER], capture_output=True, text=True, check=True,
                       env={**os.environ, "XLA_FLAGS": ""})
recorded["late_device_count_fixed"] = int(count.stdout.split()[-1])
with open(path, "w") as f:
    json.dump(recorded, f, indent=1, sort_keys=True)
    f.write("\n")
