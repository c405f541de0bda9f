# conformance: ulps=16
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-6

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = jax.vjp(lambda a: f(a, x_star), a)
    _, vjp_x = jax.vjp(lambda x: f(a, x), x_star)
    w = x_star_bar
    for _ in range(30):
        w = x_star_bar + vjp_x(w)[0]
    a_bar, = vjp_a(w)
    return a_bar, jnp.zeros_like(x_star)


fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)


def newton_sqrt(a):
    update = lambda a, x: 0.5 * (x + a / x)
    return fixed_point(update, a, a)


print(newton_sqrt(2.))
print(jax.grad(newton_sqrt)(2.))
print(jax.grad(jax.grad(jnp.sqrt))(2.))
RESULTS = {"sqrt2": newton_sqrt(2.), "dsqrt2": jax.grad(newton_sqrt)(2.)}
