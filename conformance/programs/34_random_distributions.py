import jax.numpy as jnp
from jax import random

k = random.key(1234)
ks = random.split(k, 12)
print(random.uniform(ks[0], (3,), minval=-1., maxval=1.))
print(random.randint(ks[1], (6,), 0, 5))
print(random.bernoulli(ks[2], 0.3, (6,)))
print(random.permutation(ks[3], 6))
print(random.choice(ks[4], 10, (3,), replace=False))
print(random.categorical(ks[5], jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(6,)))
RESULTS = {
    "normal": random.normal(ks[6], (2, 3)),
    "truncated": random.truncated_normal(ks[7], -1., 1., (4,)),
    "exponential": random.exponential(ks[10], (3,)),
    "mvn": random.multivariate_normal(ks[11], jnp.zeros(2), jnp.eye(2), (2,)),
    "shuffled": random.permutation(k, jnp.arange(8) * 10),
}
