"""Record tests/data/name_stack_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_name_stack_reference.py

It lowers and compiles the programs of tests/data/name_stack_cases.py with JAX and keeps the
op names XLA's compiled program carries (`op_name="jit(f)/transpose(jvp())/mul"`) and the
names of the lowered module's locations (`as_text(debug_info=True)`);
tests/transforms/test_name_stack.py does the same with jxkernel and compares.
"""
import jax
from recording import record_json

record_json(jax, "name_stack_cases", "name_stack_reference.json")
