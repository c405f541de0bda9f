# conformance: ulps=32
import jax
import jax.numpy as jnp

xs = jnp.linspace(-1, 1, 20)
ys = 3.0 * xs - 0.5 + 0.1 * jax.random.normal(jax.random.key(0), (20,))


def model(theta, x):
    w, b = theta
    return w * x + b


def loss_fn(theta, x, y):
    return jnp.mean((model(theta, x) - y) ** 2)


@jax.jit
def update(theta, x, y, lr=0.1):
    return theta - lr * jax.grad(loss_fn)(theta, x, y)


theta = jnp.array([1., 1.])
for _ in range(200):
    theta = update(theta, xs, ys)
w, b = theta
print(f"w: {w:<.2f}, b: {b:<.2f}")
RESULTS = {"theta": theta, "loss": loss_fn(theta, xs, ys)}
