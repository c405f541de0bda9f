import jax
import jax.numpy as jnp
from jax.experimental import checkify


def f(x, i):
    checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
    y = x[i]
    return jnp.sin(y)


checked_f = checkify.checkify(f)
err, out = jax.jit(checked_f)(jnp.arange(3.), -1)
print(err.get())
err, out = jax.jit(checked_f)(jnp.arange(3.), 1)
print(err.get(), out)
err, _ = checkify.checkify(lambda v: jnp.log(v), errors=checkify.float_checks)(-1.0)
print(err.get() is not None)
