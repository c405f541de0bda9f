"""Write tests/data/learner_profiling_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_learner_profiling_reference.py

What `run` in tests/data/learner_profiling_cases.py answers: the lines of that file the
lowered modules' debug-info locations name, XLA's cost_analysis() and memory_analysis() of
the compiled programs, and what donation deletes."""
import jax
from recording import record_json

record_json(jax, "learner_profiling_cases", "learner_profiling_reference.json")
