"""Record what JAX 0.10.2 answers for tests/data/export_sharded_cases.py (jax.export over
several devices: shardings, module text, calls and errors) on 8 simulated CPU devices, in a
process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_export_sharded_reference.py

writes tests/data/export_sharded_reference.json: {"run": run(jax), "jax_version"}. The
modules are exported without source lines in their locations
(`jax_traceback_in_locations_limit = 0`), so the recorded bytes name no file of this machine.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import export_sharded_cases
    assert len(jax.devices()) == int(sys.argv[1])
    jax.config.update("jax_traceback_in_locations_limit", 0)
    print(json.dumps({"run": export_sharded_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "export_sharded_reference.json")
