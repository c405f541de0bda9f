"""Generate fft_reference.npz and fft_jaxprs.json from real JAX 0.10.2 (run by hand, not by the
test suite):

    .venv-jax/bin/python reference/make_fft_reference.py

The cases are in tests/data/fft_cases.py. Each output is stored under "<mode>/<case>" (mode
"x32" or "x64") with its weak type under "<mode>/<case>#weak".
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
from fft_cases import JAXPRS, cases, jaxpr_operands  # noqa: E402

flat = {}
for mode in ("x32", "x64"):
    jax.config.update("jax_enable_x64", mode == "x64")
    for name, value in cases(jax, jnp, lax, mode == "x64").items():
        flat[f"{mode}/{name}"] = np.asarray(value)
        flat[f"{mode}/{name}#weak"] = np.asarray(bool(value.weak_type))
jax.config.update("jax_enable_x64", False)
np.savez_compressed(os.path.join(HERE, "fft_reference.npz"), **flat)

ops = jaxpr_operands()
texts = {name: str(jax.make_jaxpr(lambda *a, fun=fun: fun(jax, jnp, lax, *a))(
    *[ops[k] for k in keys])) for name, (fun, keys) in JAXPRS.items()}
with open(os.path.join(HERE, "fft_jaxprs.json"), "w") as f:
    json.dump(texts, f, indent=1)
print(f"{len(flat) // 2} arrays and {len(texts)} jaxprs written")
