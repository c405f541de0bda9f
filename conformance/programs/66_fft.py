# conformance: ulps=16
import jax.numpy as jnp

x = jnp.array([1., 2., 0., -1.])
print(jnp.fft.fft(x))
print(jnp.fft.ifft(jnp.fft.fft(x)).real)
print(jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n=4))
print(jnp.fft.fftfreq(4), jnp.fft.rfftfreq(4, d=0.5), jnp.fft.fftshift(jnp.arange(4)))
RESULTS = {"fft2": jnp.fft.fft2(jnp.arange(6.).reshape(2, 3)),
           "rfftn": jnp.fft.rfftn(jnp.arange(8.).reshape(2, 4))}
