"""Record what JAX 0.10.2 answers for tests/data/export_sharded_cases.py (jax.export over
several devices: shardings, module text, calls and errors) on 8 simulated CPU devices, in a
process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_export_sharded_reference.py

writes tests/data/export_sharded_reference.json: {"run": run(jax), "jax_version"}. The
modules are exported without source lines in their locations
(`jax_traceback_in_locations_limit = 0`), so the recorded bytes name no file of this machine.
"""
import json
import os
import subprocess
import sys

from recording import DATA

if len(sys.argv) == 2:                      # the child
    import jax
    import export_sharded_cases
    assert len(jax.devices()) == int(sys.argv[1])
    jax.config.update("jax_traceback_in_locations_limit", 0)
    print(json.dumps({"run": export_sharded_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
       "JAX_PLATFORMS": "cpu"}
child = subprocess.run([sys.executable, __file__, "8"], env=env, capture_output=True, text=True,
                       check=True)
got = json.loads(child.stdout.strip().splitlines()[-1])
path = os.path.join(DATA, "export_sharded_reference.json")
with open(path, "w") as f:
    json.dump(got, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
