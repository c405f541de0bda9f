import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(x):
    if x > 0:
        return jnp.sin(x)
    else:
        return jnp.cos(x)


@f.defjvp
def f_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = f(x)
    if x > 0:
        return ans, 2 * x_dot
    else:
        return ans, 3 * x_dot


print(f(1.), f(-1.))
print(jax.grad(f)(1.))
print(jax.grad(f)(-1.))


@jax.custom_vjp
def g(x):
    return x * 2 if x > 0 else x * -2


def g_fwd(x):
    return g(x), x


def g_bwd(x, ct):
    return (ct * (2.0 if x > 0 else -2.0),)


g.defvjp(g_fwd, g_bwd)
print(g(3.0), jax.grad(g)(3.0), jax.grad(g)(-3.0))
