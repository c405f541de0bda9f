"""Record tests/data/remat_offload_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_remat_offload_reference.py

Checkpoint policies answering Recompute, Saveable or Offloadable (tests/data/remat_offload_cases.py),
compared by tests/transforms/test_remat_offload.py.
"""
import jax
from recording import record_json

record_json(jax, "remat_offload_cases", "remat_offload_reference.json")
