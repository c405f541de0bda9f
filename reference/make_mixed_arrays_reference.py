"""Record what JAX 0.10.2 does given jxkernel's arrays, both imported in one process (a
library's `import jax` beside the learner's `import jxkernel as jax`), in
tests/data/mixed_arrays_reference.json (run by hand, not by the test suite; jxkernel from this
checkout, on JAX's virtualenv's jaxlib):

    PYTHONPATH=. .venv-jax/bin/python reference/make_mixed_arrays_reference.py

The cases are tests/data/mixed_arrays_cases.py. tests/notebook/test_real_jax_beside_jxkernel.py
holds the real-JAX note and the real-jax-array card to these answers.
"""
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
from recording import record_json  # noqa: E402

if __name__ == "__main__":
    record_json(jax, "mixed_arrays_cases", "mixed_arrays_reference.json")
