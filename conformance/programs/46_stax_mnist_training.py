# conformance: ulps=64 atol=3e-7
# (training steps compound rounding: code without FMA contraction moves the smallest weights
# (4e-5) by more than 64 of their own ulps; 3e-7 is 2.5 ulps of the largest)
import jax
import jax.numpy as jnp
from jax import grad, jit, random
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, LogSoftmax, Relu

init_random_params, predict = stax.serial(Dense(16), Relu, Dense(4), LogSoftmax)


def loss(params, batch):
    inputs, targets = batch
    return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


def accuracy(params, batch):
    inputs, targets = batch
    return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, axis=1))


rng = random.key(0)
k_data, k_init = random.split(rng)
inputs = random.normal(k_data, (32, 8))
labels = jax.nn.one_hot(jnp.argmax(inputs[:, :4], axis=1), 4)
batch = (inputs, labels)
_, init_params = init_random_params(k_init, (-1, 8))
opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.9)
opt_state = opt_init(init_params)


@jit
def update(i, opt_state, batch):
    params = get_params(opt_state)
    return opt_update(i, grad(loss)(params, batch), opt_state)


for i in range(30):
    opt_state = update(i, opt_state, batch)
params = get_params(opt_state)
print(f"train accuracy {accuracy(params, batch):.3f}")
print([tuple(p.shape for p in layer) for layer in params])
RESULTS = {"loss": loss(params, batch), "w0": params[0][0]}
