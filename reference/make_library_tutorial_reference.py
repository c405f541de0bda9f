"""Record JAX 0.10.2's answers to what the libraries' tutorials asked of jxkernel, in
tests/data/library_tutorial_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_library_tutorial_reference.py

The cases are tests/data/library_tutorial_cases.py (they ask for 8 CPU devices themselves, as
Flax's sharding guide does); tests/jax_compat/test_library_tutorials.py runs them with jxkernel.
"""
import jax
from recording import record_json

if __name__ == "__main__":
    record_json(jax, "library_tutorial_cases", "library_tutorial_reference.json")
