import jax
import jax.numpy as jnp

f = lambda x: jnp.sin(x) * jnp.cos(x)
x = jnp.array([0.1, 0.5, 1.0])
v = jnp.array([1.0, 0.0, 2.0])
y, y_dot = jax.jvp(f, (x,), (v,))
print(y, y_dot)
y2, f_vjp = jax.vjp(f, x)
ct, = f_vjp(jnp.ones(3))
print(y2, ct)
y3, f_jvp = jax.linearize(f, x)
print(y3, f_jvp(v))
pair = jax.jvp(lambda a, b: (a * b, a + b), (2.0, 3.0), (1.0, 0.0))
print(pair)
out, vjp_two = jax.vjp(lambda a, b: a * b, 2.0, 3.0)
print(out, vjp_two(1.0))
print(jax.linear_transpose(lambda t: 2 * t, 1.0)(3.0))
try:
    jax.jvp(f, (x,), (jnp.ones(2),))
except ValueError as e:
    print("caught", type(e).__name__)
RESULTS = {"y_dot": y_dot, "ct": ct}
