import jax
import jax.numpy as jnp


def f(params, x):
    return jnp.tanh(x @ params["w"] + params["b"]), x.sum()


params = {"w": jax.ShapeDtypeStruct((4, 3), jnp.float32), "b": jax.ShapeDtypeStruct((3,), jnp.float32)}
x = jax.ShapeDtypeStruct((8, 4), jnp.float32)
out = jax.eval_shape(f, params, x)
print(out)
print(out[0].shape, out[0].dtype, out[1].ndim, out[1].size)
s = jax.ShapeDtypeStruct((2, 3), jnp.int32)
print(s, s == jax.ShapeDtypeStruct((2, 3), jnp.int32), hash(s) == hash(jax.ShapeDtypeStruct((2, 3), jnp.int32)))
print(jax.eval_shape(lambda a: a.astype(jnp.bfloat16), s))
print(jax.jit(lambda a: a * 2).eval_shape(s))
print(jax.make_jaxpr(lambda a: a.T)(s))
