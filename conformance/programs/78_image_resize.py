# conformance: ulps=16
import jax
import jax.numpy as jnp

img = jnp.arange(16.).reshape(4, 4)
print(jax.image.resize(img, (2, 2), method="linear"))
print(jax.image.resize(img, (8, 8), method="nearest")[0])
RESULTS = {"bilinear": jax.image.resize(img, (6, 5), method="bilinear"),
           "cubic": jax.image.resize(img, (3, 3), method="cubic"),
           "scaled": jax.image.scale_and_translate(img, (4, 4), (0, 1), jnp.array([1., 1.]),
                                                   jnp.array([0.5, 0.]), method="linear")}
