import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    jax.debug.print("x: {}", x)
    y = jnp.sin(x)
    jax.debug.print("y: {y}", y=y)
    return y * 2


print(f(jnp.float32(1.0)))


def step(c, x):
    jax.debug.print("carry {c} x {x}", c=c, x=x, ordered=True)
    return c + x, c


out = jax.lax.scan(step, 0, jnp.arange(3))
jax.effects_barrier()
print(out)
print(jax.grad(lambda x: (jax.debug.print("inside grad {}", x), x ** 2)[1])(3.0))
