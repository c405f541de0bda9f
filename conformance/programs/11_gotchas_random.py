import jax
import numpy as np
from jax import random

np.random.seed(0)
print(np.random.random() > 0)

key = random.key(0)
print(random.normal(key, (1,)))
print(random.normal(key, (1,)))
key, subkey = random.split(key)
normal_pseudorandom = random.normal(subkey, shape=(1,))
print(r"    \---SPLIT --> new key    ", random.key_data(key))
print(r"             \--> new subkey", random.key_data(subkey), "--> normal", normal_pseudorandom)
key, *subkeys = random.split(key, 4)
print([random.key_data(k).tolist() for k in subkeys])
old = random.PRNGKey(42)
print(old, old.dtype, old.shape)
RESULTS = {
    "uniform": random.uniform(random.PRNGKey(1), (3, 2)),
    "randint": random.randint(random.PRNGKey(2), (5,), 0, 10),
    "bits": random.bits(random.key(3), (4,)),
    "split": random.key_data(random.split(random.key(7), 3)),
}
print(jax.random.key_impl(key))
