"""Record what JAX 0.10.2 with Equinox 0.13.8 and Optax 0.2.8 says for a learner's Equinox cells
(tests/data/learner_equinox_cases.py) into tests/data/learner_equinox_reference.json.

.venv-jax has no Equinox: run with an environment that has the three, e.g.

    python -m uv venv -p 3.11 /tmp/venvje
    python -m uv pip install -p /tmp/venvje/bin/python jax==0.10.2 jaxlib==0.10.2 \\
        equinox==0.13.8 optax==0.2.8
    /tmp/venvje/bin/python reference/make_learner_equinox_reference.py
"""
from recording import record_cells

record_cells("learner_equinox_cases", "learner_equinox_reference.json",
             {"jax": "0.10.2", "equinox": "0.13.8", "optax": "0.2.8"})
