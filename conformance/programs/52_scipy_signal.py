import jax.numpy as jnp
from jax.scipy import signal

x = jnp.array([1., 2., 3., 4.])
h = jnp.array([0.5, 0.25])
print(signal.convolve(x, h))
print(signal.correlate(x, h, mode="same"))
print(signal.convolve2d(jnp.eye(3), jnp.ones((2, 2)), mode="valid"))
print(signal.fftconvolve(x, h).round(5))
f, p = signal.welch(jnp.sin(jnp.arange(64.)), nperseg=16)
print(f.shape, p.shape)
