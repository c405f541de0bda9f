"""Record what JAX 0.10.2 with Flax 0.12.7 and Optax 0.2.8 says for a learner's Flax NNX cells
(tests/data/learner_flax_cases.py) into tests/data/learner_flax_reference.json.

.venv-jax has no Flax: run with an environment that has the three, e.g.

    python -m uv venv -p 3.11 /tmp/venvjf
    python -m uv pip install -p /tmp/venvjf/bin/python jax==0.10.2 jaxlib==0.10.2 \\
        flax==0.12.7 optax==0.2.8
    /tmp/venvjf/bin/python reference/make_learner_flax_reference.py
"""
from recording import record_cells

record_cells("learner_flax_cases", "learner_flax_reference.json",
             {"jax": "0.10.2", "flax": "0.12.7", "optax": "0.2.8"})
