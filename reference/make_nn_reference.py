"""Generate nn_reference.npz from real JAX 0.10.2 (run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_nn_reference.py

Evaluates every case of nn_cases.py and stores each result array under "<group><i>_<j>"
(j-th leaf of case i; group "init" or "attn") with its dtype name under the same key plus
":dtype" (bfloat16 results are stored as float32, which holds them exactly).
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import nn_cases  # noqa: E402


def namespace():
    return dict(jax=jax, jnp=jnp, nn=jax.nn, I=jax.nn.initializers, np=np,
                k=jax.random.key(42), k0=jax.random.PRNGKey(0), **nn_cases.inputs())


def store(out, prefix, value):
    for j, leaf in enumerate(jax.tree_util.tree_leaves(value)):
        leaf = np.asarray(leaf)
        out[f"{prefix}_{j}"] = leaf.astype(np.float32) if leaf.dtype.name == "bfloat16" else leaf
        out[f"{prefix}_{j}:dtype"] = np.array(leaf.dtype.name)


def main():
    out = {}
    for i, (expr, x64, *_tolerance) in enumerate(nn_cases.INIT_CASES):
        jax.config.update("jax_enable_x64", x64)
        store(out, f"init{i}", eval(expr, namespace()))
    jax.config.update("jax_enable_x64", False)
    for i, expr in enumerate(nn_cases.ATTN_CASES):
        store(out, f"attn{i}", eval(expr, namespace()))
    path = os.path.join(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"), "nn_reference.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out) // 2} arrays to {path}")


if __name__ == "__main__":
    main()
