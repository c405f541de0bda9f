import jax
import jax.numpy as jnp
from jax import grad, value_and_grad


def f(x, y, z):
    return jnp.sum(x * y ** 2 + jnp.sin(z))


x, y, z = jnp.array([1., 2.]), jnp.array([3., 4.]), jnp.array([0.5, 1.5])
print(grad(f)(x, y, z))
print(grad(f, argnums=(0, 2))(x, y, z))
value, g = value_and_grad(f, argnums=1)(x, y, z)
print(value, g)


def loss_with_aux(w):
    pred = jnp.tanh(w * 2.0)
    return jnp.sum(pred ** 2), {"pred": pred}


(loss, aux), gw = value_and_grad(loss_with_aux, has_aux=True)(jnp.array([0.1, -0.3]))
print(loss, aux["pred"], gw)
gx, aux2 = grad(loss_with_aux, has_aux=True)(jnp.array(0.7))
print(gx, aux2)
print(grad(lambda p: p["a"] * p["b"][0])({"a": 2.0, "b": [3.0]}))
try:
    grad(lambda x: x)(jnp.ones(2))
except TypeError as e:
    print("caught", type(e).__name__)
try:
    grad(lambda n: n * 2)(3)
except TypeError as e:
    print("caught", type(e).__name__)
print(jax.grad(lambda x: x ** 3, allow_int=False)(2.0))
