# conformance: ulps=64 atol=1e-6 optimized=1
# (optimized=1: JAX's own result at the default optimization level. The tutorial's AdamW has
# eps=1e-8, and Adam divides by sqrt(v) + eps: parameters whose gradients are ~0 (BatchNorm
# makes linear1's bias one) take full-size steps in the direction of rounding noise, so under
# JAX 0.10.2 itself the eval logits moved by 1.5e-2 between XLA's AVX and AVX-512 code, and
# one of 48 argmaxes with them. eps=1e-3 keeps each step's noise at rounding size: 7e-7 there.
# An accuracy is an argmax of floats, so it is compared through what it comes from: the eval
# logits and the labels in RESULTS, not a printed fraction.)
"""Flax NNX's basics and MNIST tutorial, on small synthetic data: a Module holding Linear,
BatchNorm and Dropout layers with its own Rngs, nnx.Optimizer over Optax's AdamW, a metrics
collection (MultiMetric of Average and Accuracy), and a train step under nnx.jit with
nnx.value_and_grad that updates the model and the optimizer in place, printing the loss at
every step, then an evaluation in eval mode."""
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din, dmid, dout, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, dmid, rngs=rngs)
        self.bn = nnx.BatchNorm(dmid, rngs=rngs)
        self.dropout = nnx.Dropout(0.2, rngs=rngs)
        self.linear2 = nnx.Linear(dmid, dout, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.dropout(self.bn(self.linear1(x))))
        return self.linear2(x)


key = jax.random.PRNGKey(42)
images = jax.random.normal(key, (48, 10))
labels = jnp.argmax(images[:, :3] - images[:, 3:6], axis=-1)

model = MLP(10, 24, 3, rngs=nnx.Rngs(0))
print("linear1 kernel shape", model.linear1.kernel[...].shape)
graphdef, params, rest = nnx.split(model, nnx.Param, ...)
print("parameter count", sum(x.size for x in jax.tree_util.tree_leaves(params)))

optimizer = nnx.Optimizer(model, optax.adamw(0.01, 0.9, eps=1e-3), wrt=nnx.Param)
metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss"))


def loss_fn(model, x, y):
    logits = model(x)
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
    return loss, logits


@nnx.jit
def train_step(model, optimizer, metrics, x, y):
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, x, y)
    metrics.update(loss=loss, logits=logits, labels=y)
    optimizer.update(model, grads)
    return loss


model.train()
for step in range(8):
    batch = slice((step % 3) * 16, (step % 3) * 16 + 16)
    loss = train_step(model, optimizer, metrics, images[batch], labels[batch])
    print(f"step {step} loss {float(loss):.6f}")
computed = metrics.compute()
print("train metrics: loss", round(float(computed["loss"]), 5), "accuracy in [0, 1]",
      0 <= float(computed["accuracy"]) <= 1)
print("optimizer step", int(optimizer.step[...]))

model.eval()
logits = model(images)
print("batch-norm running mean (first 4)", model.bn.mean[...][:4])
RESULTS = {"logits": logits, "labels": labels, "kernel": model.linear2.kernel[...]}
