"""What JAX 0.10.2's mutable_array_test.py reads besides Refs themselves: the option
`jax_mutable_array_checks` (its default) and `jax._src.core.freeze` (a Ref's value as an
array). Shared by reference/make_mutable_array_reference.py (real JAX) and
tests/jax_compat/test_mutable_array_names.py (jxkernel).

`run(jax)` returns {case: value}.
"""
import importlib

import numpy as np


def run(jax) -> dict:
    core = importlib.import_module(f"{jax.__name__}._src.core")
    ref = core.new_ref(np.arange(3.0, dtype=np.float32))
    ref[1] = 5.0
    frozen = core.freeze(ref)
    return {
        "mutable_array_checks_default": bool(jax.config.jax_mutable_array_checks),
        "freeze_value": np.asarray(frozen).tolist(),
        "freeze_type": type(frozen).__name__,
        "freeze_is_jax_freeze": core.freeze is jax.freeze,
    }
