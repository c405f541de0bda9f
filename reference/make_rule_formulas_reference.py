"""Record what JAX 0.10.2 answers for tests/data/rule_formulas_cases.py (rules' formulas and
equation orders: acosh's JVP, ...):

    .venv-jax/bin/python reference/make_rule_formulas_reference.py

writes tests/data/rule_formulas_reference.json.
"""
import jax
from recording import record_json

record_json(jax, "rule_formulas_cases", "rule_formulas_reference.json")
