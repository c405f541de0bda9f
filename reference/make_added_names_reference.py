"""Record tests/data/added_names_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_added_names_reference.py

It runs tests/data/added_names_cases.py's `run` (one CPU device) here and its `run_mesh` in a
child process with 8 simulated CPU devices; tests/jax_compat/test_added_names.py runs the same
cases with jxkernel and compares.
"""
from recording import record_json_with_mesh

if __name__ == "__main__":
    import jax
    record_json_with_mesh(jax, "added_names_cases", "added_names_reference.json")
