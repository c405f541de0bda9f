"""Record what JAX 0.10.2's `aval.str_short()` writes for tests/data/str_short_cases.py (its
arguments short_dtypes and mesh_axis_types, each dtype kind, a Ref, a type over a mesh).

    .venv-jax/bin/python reference/make_str_short_reference.py

writes tests/data/str_short_reference.json.
"""
import jax
from recording import record_json

record_json(jax, "str_short_cases", "str_short_reference.json")
