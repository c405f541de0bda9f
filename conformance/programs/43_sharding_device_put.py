# conformance: devices=4
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
x = jnp.arange(16.).reshape(4, 4)
xs = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
print(xs.sharding.spec, len(xs.addressable_shards), xs.addressable_shards[0].data.shape)
y = jax.jit(lambda a: jnp.sin(a) * 2)(xs)
print(jnp.allclose(y, jnp.sin(x) * 2), y.shape)
print(jnp.sum(xs))
