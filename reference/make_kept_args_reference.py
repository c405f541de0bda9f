"""Record tests/data/kept_args_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_kept_args_reference.py

It runs tests/data/kept_args_cases.py (a jit's unused arguments: the programs' arguments,
Compiled's input_shardings and args_info, donation, calls, jax.export's module_kept_var_idx,
pmap) with JAX; tests/transforms/test_kept_args.py runs them with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "kept_args_cases", "kept_args_reference.json")
