import jax.numpy as jnp

a = jnp.linspace(0., 1., 5)
print(a)
b = jnp.arange(12).reshape(3, 4)
print(b.T, b.sum(axis=0), b.mean(), b.max(axis=1))
print(jnp.concatenate([b, b], axis=0).shape, jnp.stack([a, a]).shape)
print(jnp.einsum("ij,j->i", b.astype(jnp.float32), jnp.ones(4)))
print(jnp.argsort(jnp.array([3, 1, 2])), jnp.sort(jnp.array([3., -1., 2.])))
print(jnp.cumprod(jnp.arange(1, 6)), jnp.diff(jnp.array([1, 4, 9, 16])))
print(jnp.where(b > 5, b, -1))
print(jnp.clip(a, 0.2, 0.7), jnp.round(jnp.array([0.5, 1.5, 2.5])))
print(jnp.outer(jnp.arange(3), jnp.arange(3)), jnp.trace(jnp.eye(3)))
print(jnp.tile(jnp.array([1, 2]), 2), jnp.repeat(jnp.array([1, 2]), 2))
print(jnp.meshgrid(jnp.arange(2), jnp.arange(3))[0])
print(jnp.array([1, 2, 3]) @ jnp.array([4, 5, 6]), jnp.linalg.norm(jnp.array([3., 4.])))
print(jnp.zeros_like(b).dtype, jnp.full((2,), 7.0), jnp.eye(2, k=1))
print(jnp.expand_dims(a, 0).shape, jnp.squeeze(jnp.ones((1, 3, 1))).shape, b[:, None, :].shape)
print(jnp.pad(jnp.array([1, 2]), (1, 2)), jnp.flip(jnp.arange(4)), jnp.roll(jnp.arange(4), 1))
print(jnp.histogram(jnp.array([0.1, 0.4, 0.5, 0.9]), bins=2))
print(jnp.polyval(jnp.array([1., 2., 3.]), 2.0), jnp.interp(1.5, jnp.array([1., 2.]), jnp.array([10., 20.])))
RESULTS = {"std": jnp.std(b), "var": jnp.var(b, axis=1), "median": jnp.median(a),
           "percentile": jnp.percentile(a, 30.)}
