"""Record what JAX 0.10.2 does with memory kinds on one CPU device (device_put to 'device',
'pinned_host', 'unpinned_host' and jax.memory.Space, the types and shardings it gives, jit's
results, jaxprs and lowered modules, the mixed-memory error, a remat offload policy's
gradients) in tests/data/memory_kinds_reference.json (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_memory_kinds_reference.py

The cases are tests/data/memory_kinds_cases.py; tests/sharding/test_memory_kinds.py runs the
same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.pop("XLA_FLAGS", None)

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    assert jax.device_count() == 1, "record on one CPU device"
    record_json(jax, "memory_kinds_cases", "memory_kinds_reference.json")
