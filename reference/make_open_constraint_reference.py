"""Record what JAX 0.10.2 answers for tests/data/open_constraint_cases.py (programs over meshes
mixing Auto and Explicit axes: their values, NumPy's, and their lowered Shardy shardings) on 8
simulated CPU devices, in a process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_open_constraint_reference.py

writes tests/data/open_constraint_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import open_constraint_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": open_constraint_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "open_constraint_reference.json")
