"""Record what JAX 0.10.2 with Optax 0.2.8 says for a PyTorch learner's first Optax cells
(tests/data/learner_optax_cases.py) into tests/data/learner_optax_reference.json:

    .venv-jax/bin/python reference/make_learner_optax_reference.py
"""
from recording import record_cells

record_cells("learner_optax_cases", "learner_optax_reference.json",
             {"jax": "0.10.2", "optax": "0.2.8"})
