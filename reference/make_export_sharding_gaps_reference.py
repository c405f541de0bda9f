"""Record what JAX 0.10.2 answers for tests/data/export_sharding_gaps_cases.py (the sharding
names and the AbstractMesh export that JAX's tests/export_test.py reads) on 8 simulated CPU
devices, in a process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_export_sharding_gaps_reference.py

writes tests/data/export_sharding_gaps_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import export_sharding_gaps_cases
    assert len(jax.devices()) == int(sys.argv[1])
    assert jax.__version__ == "0.10.2", jax.__version__
    print(json.dumps({"run": export_sharding_gaps_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "export_sharding_gaps_reference.json")
