"""Record what JAX 0.10.2 answers for tests/data/export_symbolic_layout_cases.py (jax.export,
with symbolic shapes, of programs over a mesh that read a symbolic dimension as a value) on
2 simulated CPU devices, in a process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_export_symbolic_layout_reference.py

writes tests/data/export_symbolic_layout_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import export_symbolic_layout_cases
    assert len(jax.devices()) == int(sys.argv[1])
    assert jax.__version__ == "0.10.2", jax.__version__
    print(json.dumps({"run": export_symbolic_layout_cases.run(jax),
                      "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 2, "export_symbolic_layout_reference.json")
