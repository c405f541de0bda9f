"""Eager operations a learner writes, whose programs JAX 0.10.2 names in its persistent-cache
lines ("PERSISTENT COMPILATION CACHE MISS for 'jit_sin' ..."): recorded by
reference/make_eager_program_names_reference.py (each case in a process of its own, a fresh
cache folder, `jax_explain_cache_misses` on, every compile written) into
tests/data/eager_program_names_reference.json, and compared by
tests/views/test_eager_program_names.py. JAX names an eager program after the jitted
function that made it (`jnp.multiply` is a jit of `multiply`, `jnp.sum` of `_reduce_sum`) or,
for a primitive applied alone (`lax.mul`), after the primitive.

The inputs are put on the device first, so that only the case's own operation compiles.
"""
import numpy as np

# name -> (kind, the operation on x, y: f32[2, 3] and v: i32[3])
CASES = {
    "sin": ("elementwise", lambda jnp, lax, x, y, v: jnp.sin(x)),
    "multiply": ("elementwise", lambda jnp, lax, x, y, v: x * y),
    "add_python_scalar": ("elementwise", lambda jnp, lax, x, y, v: x + 1),
    "negative": ("elementwise", lambda jnp, lax, x, y, v: -x),
    "maximum": ("elementwise", lambda jnp, lax, x, y, v: jnp.maximum(x, y)),
    "lax_mul": ("elementwise", lambda jnp, lax, x, y, v: lax.mul(x, y)),
    "subtract": ("elementwise", lambda jnp, lax, x, y, v: x - y),
    "true_divide": ("elementwise", lambda jnp, lax, x, y, v: x / y),
    "greater": ("elementwise", lambda jnp, lax, x, y, v: x > y),
    "power_int": ("elementwise", lambda jnp, lax, x, y, v: x ** 2),
    "abs": ("elementwise", lambda jnp, lax, x, y, v: jnp.abs(x)),
    "minimum": ("elementwise", lambda jnp, lax, x, y, v: jnp.minimum(x, y)),
    "exp": ("elementwise", lambda jnp, lax, x, y, v: jnp.exp(x)),
    "square": ("elementwise", lambda jnp, lax, x, y, v: jnp.square(x)),
    "lax_neg": ("elementwise", lambda jnp, lax, x, y, v: lax.neg(x)),
    "broadcast_to": ("broadcast", lambda jnp, lax, x, y, v: jnp.broadcast_to(v, (2, 3))),
    "ones_plus_one": ("broadcast", lambda jnp, lax, x, y, v: jnp.ones(3) + 1),
    "zeros": ("broadcast", lambda jnp, lax, x, y, v: jnp.zeros((2, 3))),
    "sum": ("reduce", lambda jnp, lax, x, y, v: jnp.sum(x)),
    "sum_axis": ("reduce", lambda jnp, lax, x, y, v: x.sum(axis=0)),
    "max": ("reduce", lambda jnp, lax, x, y, v: x.max()),
    "mean": ("reduce", lambda jnp, lax, x, y, v: jnp.mean(x)),
    "astype": ("convert", lambda jnp, lax, x, y, v: x.astype(jnp.int32)),
    "asarray_dtype": ("convert", lambda jnp, lax, x, y, v: jnp.asarray(v, jnp.float32)),
    "lax_convert": ("convert",
                    lambda jnp, lax, x, y, v: lax.convert_element_type(v, jnp.float32)),
}


def inputs(jax):
    """(x, y, v) on the default device, ready."""
    x = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = jax.device_put(np.ones((2, 3), np.float32))
    v = jax.device_put(np.arange(3, dtype=np.int32))
    return jax.block_until_ready((x, y, v))


def run(jax, name, args) -> None:
    """Case `name`'s operation on `args` (from `inputs`), waited for."""
    jax.block_until_ready(CASES[name][1](jax.numpy, jax.lax, *args))
