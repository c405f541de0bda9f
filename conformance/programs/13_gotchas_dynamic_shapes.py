import jax
import jax.numpy as jnp


def nansum(x):
    mask = ~jnp.isnan(x)
    x_without_nans = x[mask]
    return x_without_nans.sum()


x = jnp.array([1, 2, jnp.nan, 3, 4])
print(nansum(x))
try:
    jax.jit(nansum)(x)
except jax.errors.NonConcreteBooleanIndexError as e:
    print("caught", type(e).__name__)


@jax.jit
def nansum_2(x):
    mask = ~jnp.isnan(x)
    return jnp.where(mask, x, 0).sum()


print(nansum_2(x))
print(jnp.nansum(x))
print(jax.jit(lambda v: jnp.nonzero(v, size=3, fill_value=-1))(jnp.array([0, 5, 0, 7])))
print(jax.jit(lambda v: jnp.unique(v, size=4, fill_value=0))(jnp.array([3, 1, 3, 2, 1])))
