"""Record what JAX 0.10.2 answers for tests/data/mesh_gaps_cases.py (eager ops, Refs, jaxpr
texts and key reuse under set_mesh) on 8 simulated CPU devices, in a process of its own (the
device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_mesh_gaps_reference.py

writes tests/data/mesh_gaps_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import os
import subprocess
import sys

from recording import DATA

if len(sys.argv) == 2:                      # the child
    import jax
    import mesh_gaps_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": mesh_gaps_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
       "JAX_PLATFORMS": "cpu"}
child = subprocess.run([sys.executable, __file__, "8"], env=env, capture_output=True, text=True,
                       check=True)
got = json.loads(child.stdout.strip().splitlines()[-1])
path = os.path.join(DATA, "mesh_gaps_reference.json")
with open(path, "w") as f:
    json.dump(got, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
