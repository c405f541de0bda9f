# conformance: ulps=256 atol=1e-6
import jax
import jax.numpy as jnp
from jax.experimental.ode import odeint


def f(y, t, k):
    return -k * y


ts = jnp.linspace(0., 1., 4)
ys = odeint(f, 1.0, ts, 2.0)
print(jnp.round(ys, 4))
print(jnp.round(jax.grad(lambda k: odeint(f, 1.0, ts, k)[-1])(2.0), 4))
