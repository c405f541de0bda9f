"""Record what JAX 0.10.2 answers for tests/data/set_mesh_cases.py (programs under set_mesh, as
Flax's nnx/spmd_test.py runs them) on 8 simulated CPU devices, in a process of its own (the
device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_set_mesh_reference.py

writes tests/data/set_mesh_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import os
import subprocess
import sys

from recording import DATA

if len(sys.argv) == 2:                      # the child
    import jax
    import set_mesh_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": set_mesh_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
       "JAX_PLATFORMS": "cpu"}
child = subprocess.run([sys.executable, __file__, "8"], env=env, capture_output=True, text=True,
                       check=True)
got = json.loads(child.stdout.strip().splitlines()[-1])
path = os.path.join(DATA, "set_mesh_reference.json")
with open(path, "w") as f:
    json.dump(got, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
