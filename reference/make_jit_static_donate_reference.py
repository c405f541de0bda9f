"""Record what JAX 0.10.2 answers for tests/data/jit_static_donate_cases.py: jit's static and
donated arguments together, by position and by name, and pmap's refusal of both at once.

    .venv-jax/bin/python reference/make_jit_static_donate_reference.py

writes tests/data/jit_static_donate_reference.json.
"""
import warnings

import jax
from recording import record_json

warnings.simplefilter("ignore")     # donation is not implemented on CPU for some cases
record_json(jax, "jit_static_donate_cases", "jit_static_donate_reference.json")
