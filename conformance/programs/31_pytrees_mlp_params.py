# conformance: ulps=8
import jax
import jax.numpy as jnp
import numpy as np


def init_mlp_params(layer_widths):
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append(dict(weights=np.full((n_in, n_out), 0.5 / n_in, np.float32),
                           biases=np.ones(shape=(n_out,), dtype=np.float32)))
    return params


params = init_mlp_params([1, 8, 8, 1])
print(jax.tree.map(lambda x: x.shape, params))


def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer['weights'] + layer['biases'])
    return x @ last['weights'] + last['biases']


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


LEARNING_RATE = 0.0001


@jax.jit
def update(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)


xs = np.linspace(-1, 1, 16, dtype=np.float32).reshape(-1, 1)
ys = xs ** 2
for _ in range(20):
    params = update(params, xs, ys)
print(loss_fn(params, xs, ys))
RESULTS = {f"w{i}": layer['weights'] for i, layer in enumerate(params)}
