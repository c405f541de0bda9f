"""`jax.memory.Space` (the memory spaces a compute_on block's results name) and a compute_on2
function naming one, as JAX 0.10.2 answers. Shared by reference/make_memory_space_reference.py
(real JAX) and tests/api/test_memory_space.py (jxkernel).

`run(jax)` returns {case: value}.
"""
import importlib

import numpy as np


def run(jax) -> dict:
    compute_on = importlib.import_module(f"{jax.__name__}.experimental.compute_on")
    space = jax.memory.Space
    f = compute_on.compute_on2(lambda x: x * 2.0, compute_type="device_host",
                               out_memory_spaces=space.Device)
    return {
        "members": [[m.name, m.value, repr(m)] for m in space],
        "compute_on2_jit": np.asarray(jax.jit(f)(np.arange(3.0, dtype=np.float32))).tolist(),
        "compute_on2_grad": float(jax.grad(lambda x: f(x).sum())(np.float32(1.0))),
    }
