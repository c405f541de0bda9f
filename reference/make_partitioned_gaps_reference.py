"""Record tests/data/partitioned_gaps_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_partitioned_gaps_reference.py

It runs tests/data/partitioned_gaps_cases.py's `run` (one CPU device) here and its `run_mesh`
in a child process with 8 simulated CPU devices; tests/sharding/test_partitioned_gaps.py runs
the same cases with jxkernel and compares.
"""
from recording import record_json_with_mesh

if __name__ == "__main__":
    import jax
    record_json_with_mesh(jax, "partitioned_gaps_cases", "partitioned_gaps_reference.json")
