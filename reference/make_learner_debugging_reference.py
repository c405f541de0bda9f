"""Record what JAX 0.10.2 says for a learner's cells from its debugging pages
(tests/data/learner_debugging_cases.py) into tests/data/learner_debugging_reference.json
(run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_learner_debugging_reference.py
"""
import jax
from recording import record_json

record_json(jax, "learner_debugging_cases", "learner_debugging_reference.json")
