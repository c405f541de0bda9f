"""Record a case list's results under real JAX in 32- and 64-bit mode into one .npz of
tests/data: "<mode>/<case>#<leaf index>" and its weak type under "...#<leaf index>#weak"
(tests/recorded_modes.py reads it back). Used by the make_*_reference.py scripts:

    record_modes(jax, "image_cases", (jax, jnp, image), "image_reference.npz")
"""
import importlib
import os
import sys

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)          # the case lists live beside the data they produce


def record_modes(jax, case_module: str, args: tuple, filename: str) -> None:
    """tests/data/`case_module`.cases(*args, x64) in each mode, every leaf with its weak type,
    to tests/data/`filename`."""
    cases = importlib.import_module(case_module).cases
    flat = {}
    for mode in ("x32", "x64"):
        jax.config.update("jax_enable_x64", mode == "x64")
        for name, value in cases(*args, mode == "x64").items():
            for i, leaf in enumerate(jax.tree_util.tree_leaves(value)):
                flat[f"{mode}/{name}#{i}"] = np.asarray(leaf)
                flat[f"{mode}/{name}#{i}#weak"] = np.asarray(bool(leaf.weak_type))
    jax.config.update("jax_enable_x64", False)
    np.savez_compressed(os.path.join(DATA, filename), **flat)
    print(f"{len(flat) // 2} arrays written to {filename}")
