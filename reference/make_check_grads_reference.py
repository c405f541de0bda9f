"""Generate tests/data/check_grads_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_check_grads_reference.py

The cases are in tests/data/check_grads_cases.py: JAX's tangents, numerical JVPs and
check_grads outcomes. Arrays are stored as [dtype, shape, real parts, imaginary parts].
"""
import json
import os
import sys

import jax
import numpy as np
from jax import test_util
from jax._src.public_test_util import numerical_jvp, rand_like

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from check_grads_cases import cases  # noqa: E402


def _encode(v):
    if isinstance(v, str):
        return v
    return [[str(a.dtype), list(a.shape), np.real(a).ravel().tolist(), np.imag(a).ravel().tolist()]
            for a in map(np.asarray, v)]


result = {k: _encode(v) for k, v in cases(jax, test_util.check_grads, rand_like, numerical_jvp).items()}
result["_jax_version"] = jax.__version__
with open(os.path.join(HERE, "check_grads_reference.json"), "w") as f:
    json.dump(result, f, indent=1)
    f.write("\n")
print(json.dumps({k: v for k, v in result.items() if isinstance(v, str)}, indent=1))
