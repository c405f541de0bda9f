"""Record what JAX 0.10.2's jax.device_put does with `src=`, `donate=`, `may_alias=` (and a
`copy=` it does not take) in tests/data/device_put_flags_reference.json (run by hand, not by
the test suite; one CPU device):

    .venv-jax/bin/python reference/make_device_put_flags_reference.py

The cases are tests/data/device_put_flags_cases.py; tests/xla/test_put_traced.py runs the
same file with jxkernel and compares.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.pop("XLA_FLAGS", None)

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    assert jax.device_count() == 1, "record on one CPU device"
    record_json(jax, "device_put_flags_cases", "device_put_flags_reference.json")
