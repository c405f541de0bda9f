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

MASK = np.array([[True, False, True]] * 2)      # a where= mask, a NumPy constant

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
    # nan-reductions and where= reductions: one jitted program of JAX's each
    "nansum": ("reduce", lambda jnp, lax, x, y, v: jnp.nansum(x)),
    "nanmean_axis": ("reduce", lambda jnp, lax, x, y, v: jnp.nanmean(x, axis=0)),
    "nanmax": ("reduce", lambda jnp, lax, x, y, v: jnp.nanmax(x)),
    "nanmin_where": ("reduce", lambda jnp, lax, x, y, v: jnp.nanmin(x, where=MASK,
                                                                     initial=9.0)),
    "nanprod": ("reduce", lambda jnp, lax, x, y, v: jnp.nanprod(x)),
    "nanvar_ddof": ("reduce", lambda jnp, lax, x, y, v: jnp.nanvar(x, ddof=1)),
    "nanstd": ("reduce", lambda jnp, lax, x, y, v: jnp.nanstd(x)),
    "nanargmax": ("reduce", lambda jnp, lax, x, y, v: jnp.nanargmax(x)),
    "nanargmin_axis": ("reduce", lambda jnp, lax, x, y, v: jnp.nanargmin(x, axis=1)),
    "nancumsum": ("reduce", lambda jnp, lax, x, y, v: jnp.nancumsum(x)),
    "nancumprod_axis": ("reduce", lambda jnp, lax, x, y, v: jnp.nancumprod(x, axis=1)),
    "sum_where": ("reduce", lambda jnp, lax, x, y, v: jnp.sum(x, where=MASK)),
    "mean_where": ("reduce", lambda jnp, lax, x, y, v: jnp.mean(x, where=MASK)),
    "max_where": ("reduce", lambda jnp, lax, x, y, v: jnp.max(x, where=MASK, initial=0.0)),
    "var_where": ("reduce", lambda jnp, lax, x, y, v: jnp.var(x, where=MASK)),
    "std_where": ("reduce", lambda jnp, lax, x, y, v: jnp.std(x, where=MASK)),
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


def top_level_jits(jax, name, args) -> list:
    """The names of the jit equations at the top of case `name`'s jaxpr (make_jaxpr)."""
    closed = jax.make_jaxpr(lambda *a: CASES[name][1](jax.numpy, jax.lax, *a))(*args)
    return [e.params["name"] for e in closed.jaxpr.eqns if e.primitive.name in ("jit", "pjit")]
