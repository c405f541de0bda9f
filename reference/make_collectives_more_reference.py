"""Generate collectives_more_reference.npz and collectives_more_jaxprs.json from real JAX
0.10.2 with 4 simulated CPU devices (run by hand, not by the test suite):

    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        .venv-jax/bin/python reference/make_collectives_more_reference.py

The cases are in tests/data/collectives_more_cases.py. Values are stored as "vmap/<case>" and
"pmap/<case>"; jaxprs are traced per member with make_jaxpr(..., axis_env=[('i', 4)]).
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
from collectives_more_cases import JAXPRS, cases, operands, pmap_only

assert jax.device_count() >= 4, "set XLA_FLAGS=--xla_force_host_platform_device_count=4"
ops = operands()
flat = {}
for name, (fun, key) in cases(jax, jnp, lax).items():
    flat[f"vmap/{name}"] = np.asarray(jax.vmap(fun, axis_name="i")(ops[key]))
    flat[f"pmap/{name}"] = np.asarray(jax.pmap(fun, axis_name="i")(ops[key]))
    np.testing.assert_allclose(flat[f"vmap/{name}"], flat[f"pmap/{name}"], rtol=1e-6, atol=1e-6)
both = {**cases(jax, jnp, lax), **pmap_only(jax, jnp, lax)}
for name, (fun, key) in pmap_only(jax, jnp, lax).items():
    flat[f"pmap/{name}"] = np.asarray(jax.pmap(fun, axis_name="i")(ops[key]))
np.savez_compressed(os.path.join(HERE, "collectives_more_reference.npz"), **flat)
texts = {name: str(jax.make_jaxpr(both[name][0], axis_env=[("i", 4)])(ops[both[name][1]][0]))
         for name in JAXPRS}
with open(os.path.join(HERE, "collectives_more_jaxprs.json"), "w") as f:
    json.dump(texts, f, indent=1)
print(f"{len(flat)} arrays and {len(texts)} jaxprs written")
