# conformance: ulps=64 atol=1e-6
"""Flax Linen's quick start, on small synthetic data: an MLP (Dense layers with ReLU) written
with nn.compact, its parameters from model.init, trained with a TrainState holding Optax's
SGD with momentum, a jitted train step computing the loss and its gradient with
value_and_grad and applying them, printing the loss and accuracy at every step."""
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


class MLP(nn.Module):
    features: tuple = (32, 16)
    num_classes: int = 4

    @nn.compact
    def __call__(self, x):
        for width in self.features:
            x = nn.relu(nn.Dense(width)(x))
        return nn.Dense(self.num_classes)(x)


key = jax.random.PRNGKey(0)
data_key, init_key = jax.random.split(key)
images = jax.random.normal(data_key, (64, 8))
labels = jnp.argmax(images[:, :4] + 0.5 * images[:, 4:], axis=-1)

model = MLP()
params = model.init(init_key, jnp.ones((1, 8)))["params"]
print("parameter shapes", jax.tree_util.tree_map(jnp.shape, params))
print("parameter count", sum(x.size for x in jax.tree_util.tree_leaves(params)))

state = train_state.TrainState.create(apply_fn=model.apply, params=params,
                                      tx=optax.sgd(0.1, momentum=0.9))


@jax.jit
def train_step(state, x, y):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, x)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        return loss, logits

    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    state = state.apply_gradients(grads=grads)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == y)
    return state, loss, accuracy


for step in range(8):
    state, loss, accuracy = train_step(state, images, labels)
    print(f"step {step} loss {float(loss):.6f} accuracy {float(accuracy):.4f}")
print("step counter", int(state.step))

logits = model.apply({"params": state.params}, images[:3])
print("logits of three examples", logits)
RESULTS = {"final_kernel": state.params["Dense_2"]["kernel"], "logits": logits}
