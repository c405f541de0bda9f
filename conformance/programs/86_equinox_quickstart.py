# conformance: ulps=64 atol=1e-6
"""Equinox's quick start: a Module of arrays, trained with filter_jit/filter_grad and plain
SGD, then an eqx.nn.MLP trained with Optax's Adam, printing the loss at every step."""
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Linear(eqx.Module):
    weight: jax.Array
    bias: jax.Array

    def __init__(self, in_size, out_size, key):
        wkey, bkey = jax.random.split(key)
        self.weight = jax.random.normal(wkey, (out_size, in_size))
        self.bias = jax.random.normal(bkey, (out_size,))

    def __call__(self, x):
        return self.weight @ x + self.bias


@jax.jit
@jax.grad
def linear_grads(model, x, y):
    pred_y = jax.vmap(model)(x)
    return jnp.mean((y - pred_y) ** 2)


def linear_loss(model, x, y):
    return jnp.mean((y - jax.vmap(model)(x)) ** 2)


batch_size, in_size, out_size = 32, 2, 3
model = Linear(in_size, out_size, key=jax.random.PRNGKey(0))
x = jnp.zeros((batch_size, in_size))
y = jnp.zeros((batch_size, out_size))
grads = linear_grads(model, x, y)
print("grad of bias", grads.bias)
for step in range(5):
    grads = linear_grads(model, x + step, y)
    model = jax.tree_util.tree_map(lambda m, g: m - 0.01 * g, model, grads)
    print("linear step", step, "loss", linear_loss(model, x + step, y))


# an MLP on synthetic data: y = sin(3x) + x^2
key = jax.random.PRNGKey(42)
data_key, model_key = jax.random.split(key)
xs = jax.random.uniform(data_key, (64, 1), minval=-1.0, maxval=1.0)
ys = jnp.sin(3 * xs) + xs ** 2
mlp = eqx.nn.MLP(in_size=1, out_size=1, width_size=16, depth=2, activation=jax.nn.tanh,
                 key=model_key)


@eqx.filter_value_and_grad
def mlp_loss(model, x, y):
    return jnp.mean((jax.vmap(model)(x) - y) ** 2)


@eqx.filter_jit
def sgd_step(model, x, y):
    loss, grads = mlp_loss(model, x, y)
    model = eqx.apply_updates(model, jax.tree_util.tree_map(lambda g: -0.1 * g, grads))
    return model, loss


sgd_model = mlp
for step in range(5):
    sgd_model, loss = sgd_step(sgd_model, xs, ys)
    print("sgd step", step, "loss", loss)

optim = optax.adam(1e-2)
opt_state = optim.init(eqx.filter(mlp, eqx.is_inexact_array))


@eqx.filter_jit
def adam_step(model, opt_state, x, y):
    loss, grads = mlp_loss(model, x, y)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss


for step in range(10):
    mlp, opt_state, loss = adam_step(mlp, opt_state, xs, ys)
    print("adam step", step, "loss", loss)

# filter_grad leaves non-arrays alone, filter_vmap maps a Module's call
grads = eqx.filter_grad(lambda m: jnp.sum(m(xs[0])))(mlp)
print("activation gradient is", grads.activation)
print("last layer bias grad", grads.layers[-1].bias)
print("batched prediction", eqx.filter_vmap(mlp)(xs[:3]))
RESULTS = {"prediction": jax.vmap(mlp)(xs), "linear_weight": model.weight}
