"""Record tests/data/tpu_linalg_reference.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_tpu_linalg_reference.py

tests/_jax/test_tpu_linalg.py runs tests/data/tpu_linalg_cases.py with jxkernel and compares.
"""
from recording import record_json

if __name__ == "__main__":
    import jax
    record_json(jax, "tpu_linalg_cases", "tpu_linalg_reference.json")
