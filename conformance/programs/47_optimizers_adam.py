# conformance: ulps=32
import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers


def f(p):
    return jnp.sum((p["x"] - 3.0) ** 2) + (p["y"] + 1.0) ** 2


init, update, get_params = optimizers.adam(step_size=0.1)
state = init({"x": jnp.zeros(2), "y": 0.0})
for i in range(20):
    state = update(i, jax.grad(f)(get_params(state)), state)
print(jax.tree.map(lambda v: v.round(2), get_params(state)))
sched = optimizers.exponential_decay(1.0, 10, 0.5)
print(sched(0), sched(10), optimizers.l2_norm({"a": jnp.array([3., 4.])}))
sgd = optimizers.sgd(0.5)
s = sgd.init_fn(jnp.array(2.0))
s = sgd.update_fn(0, jnp.array(1.0), s)
print(sgd.params_fn(s))
RESULTS = {"params": get_params(state)["x"]}
