# conformance: ulps=8
import jax
import jax.numpy as jnp
from jax import hessian, jacfwd, jacrev


def predict(W, b, inputs):
    return jax.nn.sigmoid(jnp.dot(inputs, W) + b)


key = jax.random.key(0)
k1, k2 = jax.random.split(key)
inputs = jnp.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]])
W = jax.random.normal(k1, (3,))
b = jax.random.normal(k2, ())
f = lambda W: predict(W, b, inputs)
J = jacfwd(f)(W)
print("jacfwd result, with shape", J.shape)
J2 = jacrev(f)(W)
print("jacrev result, with shape", J2.shape)
print(jnp.allclose(J, J2, atol=1e-6))
H = hessian(f)(W)
print("hessian, with shape", H.shape)
jac_tree = jacrev(lambda p: p["w"] * p["s"])({"w": jnp.arange(2.), "s": 3.0})
print(jax.tree_util.tree_map(jnp.shape, jac_tree))
print(jax.jacobian(jnp.sin)(jnp.array([0.0, 1.0])))
RESULTS = {"J": J, "Jrev": J2, "H": H}
