"""Record tests/data/linalg_platforms_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_linalg_platforms_reference.py

tests/lax/test_linalg_platforms.py runs tests/data/linalg_platforms_cases.py with jxkernel and
compares: linear algebra exported for 'tpu', 'rocm' and several platforms at once.
"""
from recording import record_json

if __name__ == "__main__":
    import jax
    record_json(jax, "linalg_platforms_cases", "linalg_platforms_reference.json")
