# conformance: ulps=64 atol=1e-6
"""Optax's quick start, on small synthetic data: a linear model fitted with optax.adam on the
mean of optax.l2_loss (grads from jax.grad, optimizer.update, optax.apply_updates), then a
small MLP classifier trained with a chain of clip_by_global_norm and adamw following a
warmup-cosine schedule, on softmax_cross_entropy_with_integer_labels, in a jitted step;
printing the loss at every step, and the schedule's learning rate."""
import jax
import jax.numpy as jnp
import optax

# --- a linear model and Adam, as Optax's README
key = jax.random.PRNGKey(0)
kx, kw, kn = jax.random.split(key, 3)
xs = jax.random.normal(kx, (32, 3))
true_w = jnp.array([0.5, -1.0, 2.0])
ys = xs @ true_w + 0.3 + 0.01 * jax.random.normal(kn, (32,))
params = {"w": jnp.zeros(3), "b": jnp.zeros(())}


def network(params, x):
    return x @ params["w"] + params["b"]


def compute_loss(params, x, y):
    y_pred = network(params, x)
    return jnp.mean(optax.l2_loss(y_pred, y))


optimizer = optax.adam(learning_rate=0.1)
opt_state = optimizer.init(params)
for step in range(15):
    loss, grads = jax.value_and_grad(compute_loss)(params, xs, ys)
    updates, opt_state = optimizer.update(grads, opt_state)
    params = optax.apply_updates(params, updates)
    print(f"linear step {step:2d} loss {float(loss):.6f}")
print("w", params["w"], "b", params["b"])

# --- an MLP classifier: gradient clipping, AdamW and a schedule, in a jitted step
k1, k2, kd = jax.random.split(jax.random.PRNGKey(1), 3)
images = jax.random.normal(kd, (48, 6))
labels = jnp.argmax(images[:, :3] - 0.5 * images[:, 3:], axis=-1)
mlp = {"w1": 0.3 * jax.random.normal(k1, (6, 16)), "b1": jnp.zeros(16),
       "w2": 0.3 * jax.random.normal(k2, (16, 3)), "b2": jnp.zeros(3)}


def logits_of(p, x):
    return jax.nn.relu(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def ce_loss(p, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(logits_of(p, x), y).mean()


schedule = optax.warmup_cosine_decay_schedule(init_value=0.0, peak_value=0.05,
                                              warmup_steps=3, decay_steps=12, end_value=0.005)
tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-3))
state = tx.init(mlp)


@jax.jit
def train_step(p, s, x, y):
    loss, grads = jax.value_and_grad(ce_loss)(p, x, y)
    updates, s = tx.update(grads, s, p)
    return optax.apply_updates(p, updates), s, loss


for step in range(12):
    mlp, state, loss = train_step(mlp, state, images, labels)
    acc = jnp.mean(jnp.argmax(logits_of(mlp, images), -1) == labels)
    print(f"mlp step {step:2d} lr {float(schedule(step)):.5f} loss {float(loss):.6f} "
          f"acc {float(acc):.4f}")
print("global norm of the last gradients:",
      float(optax.global_norm(jax.grad(ce_loss)(mlp, images, labels))))
RESULTS = {"w": params["w"], "b": params["b"], "w2": mlp["w2"]}
