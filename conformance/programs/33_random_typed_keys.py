import jax
from jax import random

key = random.key(0)
print(key)
print(key.dtype, key.shape, random.key_data(key))
print(jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key))
legacy = random.PRNGKey(0)
print(legacy)
print(random.key_data(random.wrap_key_data(legacy)))
keys = random.split(key, 3)
print(keys.shape, random.key_data(keys).shape)
folded = random.fold_in(key, 7)
print(random.key_data(folded))
print(random.key_data(random.clone(key)))
print(jax.vmap(lambda k: random.uniform(k))(keys))
print(jax.jit(lambda k: random.key_data(random.split(k)[1]))(key))
RESULTS = {"folded": random.key_data(folded), "keys": random.key_data(keys),
           "normal": random.normal(folded, (2, 2)), "legacy_normal": random.normal(legacy, (3,))}
