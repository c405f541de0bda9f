"""Write tests/data/jax_edges_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_jax_edges_reference.py

For each case of `mistakes` in tests/data/jax_edges_cases.py: [exception class name, first
line of its message]; for each case of `tracer_prints`: the strings the function printed;
`trace_counts`: how often each control-flow body ran its Python over two calls;
`cond_forwarding`: cond's outputs that are inputs, in jaxprs and under vmap; `custom_vjp`:
bwd's prefix cotangents and the trace fwd's callees see."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from jax_edges_cases import (cond_forwarding, custom_vjp_cases, mistakes,  # noqa: E402
                             trace_counts, tracer_prints)


def raised(thunk):
    try:
        thunk()
    except Exception as e:            # noqa: BLE001 (recording whatever JAX raises)
        return [type(e).__name__, str(e).strip().splitlines()[0]]
    raise AssertionError("the case did not raise")


result = {"mistakes": {name: raised(thunk) for name, thunk in mistakes(jax).items()},
          "tracer_prints": tracer_prints(jax), "trace_counts": trace_counts(jax),
          "cond_forwarding": cond_forwarding(jax), "custom_vjp": custom_vjp_cases(jax)}
with open(os.path.join(DATA, "jax_edges_reference.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
