"""Record what JAX 0.10.2 answers for tests/data/mesh_types_cases.py (a jit's results typed over
set_mesh's mesh or laid out by XLA, vmap keeping the vmapped mesh axes, meshes of Explicit and
Auto axes) on 8 simulated CPU devices, in a process of its own (the device count is fixed when
JAX starts).

    .venv-jax/bin/python reference/make_mesh_types_reference.py

writes tests/data/mesh_types_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import mesh_types_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": mesh_types_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "mesh_types_reference.json")
