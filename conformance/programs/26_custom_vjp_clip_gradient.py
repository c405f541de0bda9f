from functools import partial

import jax
import jax.numpy as jnp
from jax import custom_vjp, grad, vmap


@custom_vjp
def clip_gradient(lo, hi, x):
    return x


def clip_gradient_fwd(lo, hi, x):
    return x, (lo, hi)


def clip_gradient_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
t = jnp.linspace(0, 10, 5)
print(jnp.sin(t))
print(vmap(grad(jnp.sin))(t))
print(vmap(grad(lambda x: clip_gradient(-0.75, 0.75, jnp.sin(x))))(t))


@partial(custom_vjp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)


def app_fwd(f, x):
    return app(f, x), x


def app_bwd(f, x, g):
    return (5 * g,)


app.defvjp(app_fwd, app_bwd)
print(app(lambda x: x ** 3, 3.))
print(grad(app, 1)(lambda x: x ** 3, 3.))
print(jax.jit(grad(lambda x: clip_gradient(-0.1, 0.1, x * 2.0)))(1.0))
