# conformance: ulps=16
# (truncated normals: u * (b - a) + a rounds once with an FMA and twice without, and erfinv
# magnifies the difference)
import jax
import jax.numpy as jnp
from jax.nn import initializers

key = jax.random.key(42)
ks = jax.random.split(key, 5)
RESULTS = {
    "glorot_normal": initializers.glorot_normal()(ks[0], (3, 4)),
    "he_uniform": initializers.he_uniform()(ks[1], (4, 2)),
    "lecun_normal": initializers.lecun_normal()(ks[2], (2, 3)),
    "normal": initializers.normal(0.02)(ks[3], (5,)),
    "variance_scaling": initializers.variance_scaling(2.0, "fan_avg", "uniform")(ks[4], (3, 3)),
}
print(initializers.zeros(key, (2,)), initializers.ones(key, (2,), jnp.int32))
print(initializers.constant(0.5)(key, (2,)))
print({k: v.shape for k, v in RESULTS.items()})
