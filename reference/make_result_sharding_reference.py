"""Record what JAX 0.10.2 answers for tests/data/result_sharding_cases.py: the `.sharding`
(type, repr, spec), `jax.typeof`, shards and values of common programs' results, once on one
CPU device and once on 8 simulated ones (each in a process of its own: the device count is
fixed when JAX starts).

    .venv-jax/bin/python reference/make_result_sharding_reference.py

writes tests/data/result_sharding_reference.json: {"1": run(jax), "8": run(jax), "jax_version"}.
"""
import json
import os
import subprocess
import sys

from recording import DATA

if len(sys.argv) == 2:                      # the child: one device count
    import jax
    import result_sharding_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": result_sharding_cases.run(jax), "version": jax.__version__}))
    sys.exit(0)

results = {}
for n in (1, 8):
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={n}",
           "JAX_PLATFORMS": "cpu"}
    child = subprocess.run([sys.executable, __file__, str(n)], env=env, capture_output=True,
                           text=True, check=True)
    got = json.loads(child.stdout.strip().splitlines()[-1])
    results[str(n)] = got["run"]
    results["jax_version"] = got["version"]
path = os.path.join(DATA, "result_sharding_reference.json")
with open(path, "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {os.path.normpath(path)}")
