"""Generate composites_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    cd /tmp && /work/jaxref/bin/python /work/main/tests/data/make_composites_reference.py

The cases are in composites_cases.py, run in the default mode and (prefix "x64/") with
jax_enable_x64. Each output leaf is stored under "<case>#<leaf index>", and its weak type
under "<case>#<leaf index>#weak".
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from composites_cases import cases  # noqa: E402

flat = {}
for x64 in (False, True):
    jax.config.update("jax_enable_x64", x64)
    prefix = "x64/" if x64 else ""
    for k, v in cases(jax, jnp, x64).items():
        for i, leaf in enumerate(jax.tree_util.tree_leaves(v)):
            flat[f"{prefix}{k}#{i}"] = np.asarray(leaf)
            flat[f"{prefix}{k}#{i}#weak"] = np.asarray(bool(getattr(leaf, "weak_type", False)))
np.savez_compressed(os.path.join(HERE, "composites_reference.npz"), **flat)
print(f"{len(flat) // 2} arrays written")
