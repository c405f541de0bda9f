"""Record what JAX 0.10.2 answers for tests/data/misc_gaps_cases.py (per-thread user contexts
and set_mesh, psum of constants, tokens, ...) on 8 simulated CPU devices, in a process of its
own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_misc_gaps_reference.py

writes tests/data/misc_gaps_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import misc_gaps_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": misc_gaps_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "misc_gaps_reference.json")
