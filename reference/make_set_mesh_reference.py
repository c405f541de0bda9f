"""Record what JAX 0.10.2 answers for tests/data/set_mesh_cases.py (programs under set_mesh, as
Flax's nnx/spmd_test.py runs them) on 8 simulated CPU devices, in a process of its own (the
device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_set_mesh_reference.py

writes tests/data/set_mesh_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import set_mesh_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": set_mesh_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "set_mesh_reference.json")
