import jax
import jax.numpy as jnp

seen = []
jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(v.tolist()), x))(jnp.arange(3))
jax.effects_barrier()
print(seen)
jac, aux = jax.jacfwd(lambda x: (jnp.sin(x), x.sum()), has_aux=True)(jnp.array([0., 1.]))
print(jac, aux)
jr, aux2 = jax.jacrev(lambda x: (x ** 2, {"n": x.size}), has_aux=True)(jnp.array([1., 2.]))
print(jr, aux2)
h = jax.hessian(lambda p: p["a"] ** 2 * p["b"])({"a": 1.0, "b": 2.0})
print(h)
print(jax.jvp(lambda d: {"s": d["x"] * 2}, ({"x": 1.0},), ({"x": 0.5},)))
