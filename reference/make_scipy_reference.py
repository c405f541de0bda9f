"""Generate scipy_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_scipy_reference.py

The cases (jax.scipy.stats distributions and jax.scipy.linalg, values and derivatives) are
in tests/data/scipy_cases.py: float32 ones in JAX's default mode, float64 ones in x64 mode.
Each output leaf is stored under "<f32|f64>:<case>#<leaf index>", its weak type under the
same key with "@weak" appended.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy import linalg, stats

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))      # tests/: numerics.py, which scipy_cases imports
from scipy_cases import linalg_cases, stats_cases

flat = {}
for tag, dt in (("f32", np.float32), ("f64", np.float64)):
    with jax.enable_x64(dt == np.float64):
        cases = {**{f"stats/{k}": v for k, v in stats_cases(jax, jnp, stats, dt).items()},
                 **{f"linalg/{k}": v for k, v in linalg_cases(jax, jnp, linalg, dt).items()}}
        for k, v in cases.items():
            for i, leaf in enumerate(jax.tree_util.tree_leaves(v)):
                flat[f"{tag}:{k}#{i}"] = np.asarray(leaf)
                flat[f"{tag}:{k}#{i}@weak"] = np.bool_(jax.typeof(leaf).weak_type)
np.savez_compressed(os.path.join(HERE, "scipy_reference.npz"), **flat)
print(f"{len(flat) // 2} arrays written")
