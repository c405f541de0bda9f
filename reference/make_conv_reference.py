"""Generate conv_reference.npz and conv_jaxprs.json from real JAX 0.10.2 (run by hand, not by
the test suite):

    .venv-jax/bin/python reference/make_conv_reference.py

The cases are in conv_cases.py; each result is stored under "<case>#<out|grad0|grad1>"
(bfloat16 results widened to float32).
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
from conv_cases import CASES, JAXPRS, integers, run  # noqa: E402


def make_array(values, dtype):
    return jnp.asarray(np.asarray(values).astype(dtype) if dtype != "bfloat16"
                       else np.asarray(values, np.float32), dtype=dtype)


def stored(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == jnp.bfloat16 else x


flat = {f"{name}#{k}": stored(v) for name in CASES
        for k, v in run(jax, lax, name, make_array).items()}
np.savez_compressed(os.path.join(HERE, "conv_reference.npz"), **flat)

texts = {}
for name, (fun, shapes, dtype) in JAXPRS.items():
    args = [make_array(integers(name, s, dtype, str(i)), dtype) for i, s in enumerate(shapes)]
    texts[name] = str(jax.make_jaxpr(lambda *a, fun=fun: fun(jax, lax, jnp, *a))(*args))
with open(os.path.join(HERE, "conv_jaxprs.json"), "w") as f:
    json.dump(texts, f, indent=1)
print(f"{len(flat)} arrays and {len(texts)} jaxprs written")
