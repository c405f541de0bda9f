"""Record what JAX 0.10.2 answers for tests/data/pinned_cases.py (a jit pinned to one device:
its lowered text, where it runs under grad, vmap and another jit, JAX's errors for another
device, exp.call's committed results, eager jit equations' placement) on 8 simulated CPU
devices, in a process of its own (the device count is fixed when JAX starts).

    .venv-jax/bin/python reference/make_pinned_reference.py

writes tests/data/pinned_reference.json: {"run": run(jax), "jax_version"}.
"""
import json
import sys

from recording import record_from_child

if len(sys.argv) == 2:                      # the child
    import jax
    import pinned_cases
    assert len(jax.devices()) == int(sys.argv[1])
    print(json.dumps({"run": pinned_cases.run(jax), "jax_version": jax.__version__}))
    sys.exit(0)

record_from_child(__file__, 8, "pinned_reference.json")
