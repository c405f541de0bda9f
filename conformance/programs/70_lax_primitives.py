import jax.numpy as jnp
from jax import lax

x = jnp.arange(12.).reshape(3, 4)
print(lax.dot_general(x, x, (((1,), (1,)), ((), ()))))
print(lax.reduce(x, 0., lax.add, (0,)), lax.reduce_max(x, axes=(1,)))
print(lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), "VALID"))
print(lax.dynamic_slice(x, (1, 1), (2, 2)), lax.dynamic_update_slice(x, jnp.zeros((1, 2)), (2, 2))[2])
print(lax.broadcast_in_dim(jnp.arange(3.), (2, 3), (1,)), lax.transpose(x, (1, 0)).shape)
print(lax.pad(jnp.arange(3.), 0., [(1, 2, 1)]), lax.rev(jnp.arange(4), (0,)))
print(lax.clamp(2., x[0], 5.), lax.iota(jnp.int32, 4), lax.sort(jnp.array([3, 1, 2])))
print(lax.top_k(jnp.array([1., 5., 3., 4.]), 2), lax.population_count(jnp.uint8(7)))
print(lax.shift_left(jnp.int32(1), 3), lax.bitcast_convert_type(jnp.float32(1.0), jnp.int32))
print(lax.integer_pow(x[0], 3), lax.rsqrt(4.0), lax.square(3.0), lax.erf_inv(0.5))
print(lax.conv(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2)), (1, 1), "SAME")[0, 0])
print(lax.cumsum(jnp.arange(4)), lax.cummax(jnp.array([1, 3, 2])), lax.argmax(x, 1, jnp.int32))
print(lax.expand_dims(jnp.ones(2), (0,)).shape, lax.squeeze(jnp.ones((1, 2)), (0,)).shape)
print(lax.gather(jnp.arange(5.), jnp.array([[1], [3]]), lax.GatherDimensionNumbers(
    offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)), (1,)))
