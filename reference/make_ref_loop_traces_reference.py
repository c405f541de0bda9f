"""Generate ref_loop_traces_reference.json from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_ref_loop_traces_reference.py

The cases (loops and conds whose body writes a Ref made outside: values and trace counts) are
in tests/data/ref_loop_traces_cases.py.
"""
import jax
from recording import record_json

record_json(jax, "ref_loop_traces_cases", "ref_loop_traces_reference.json")
