"""Write tests/data/flatten_room_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_flatten_room_reference.py

What tests/data/flatten_room_cases.py's `run` answers under JAX: the recursion room that
flattens raising inside a tree keep, and whether an IPython shell runs its next cell after a
dict that holds itself (tests/notebook/test_room_keeper.py)."""
import jax
from recording import record_json

record_json(jax, "flatten_room_cases", "flatten_room_reference.json")
