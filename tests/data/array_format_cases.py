"""`Array.format` (an array's layout in memory with its sharding) as JAX 0.10.2 answers it on
the CPU: row-major arrays of several ranks and dtypes, a jit's result, a deleted array;
and make_array_from_callback given a Format.
Shared by reference/make_array_format_reference.py (real JAX) and
tests/xla/test_array_format.py (jxkernel).

`run(jax)` returns {case: repr of the format's layout, or of the format}.
"""
import importlib

import numpy as np


def run(jax) -> dict:
    jnp = jax.numpy
    cases = {
        "f32_2d": jnp.ones((4, 3)),
        "scalar": jnp.float32(1.0) + 0,
        "int4": jnp.ones(3, jnp.int4),
        "bool_3d": jnp.zeros((2, 1, 2), bool),
        "jit_result": jax.jit(lambda x: x.T)(np.ones((2, 5), np.float32)),
        "from_numpy": jax.device_put(np.arange(6).reshape(2, 3)),
    }
    out = {name: repr(x.format.layout) for name, x in cases.items()}
    deleted = jnp.ones(2)
    deleted.delete()
    out["deleted"] = repr(deleted.format.layout)
    x = jnp.ones((2, 2))
    out["sharding_is_arrays"] = x.format.sharding == x.sharding
    # make_array_from_callback given a Format: a compiled program's, Layout.AUTO, no sharding
    layout = importlib.import_module(f"{jax.__name__}.experimental.layout")
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    fmt = jax.jit(lambda v: v * 2).lower(x).compile().output_formats
    made = jax.make_array_from_callback((2, 2), fmt, lambda i: np.ones((2, 2), np.float32)[i])
    out["callback/format"] = repr(made.format.layout)
    out["callback/format_equal"] = made.format == fmt
    for name, given in (("auto", layout.Format(layout.Layout.AUTO, one)),
                        ("no_sharding", layout.Format(None, None))):
        try:
            jax.make_array_from_callback((2, 2), given, lambda i: np.ones((2, 2))[i])
            out[f"callback/{name}"] = None
        except TypeError as e:
            out[f"callback/{name}"] = str(e)
    return out
