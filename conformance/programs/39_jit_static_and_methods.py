from functools import partial

import jax
import jax.numpy as jnp


class CustomClass:
    def __init__(self, x: jax.Array, mul: bool):
        self.x = x
        self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
        return self.x * y if self.mul else y

    def __hash__(self):
        return hash((self.x, self.mul))

    def __eq__(self, other):
        return isinstance(other, CustomClass) and (self.x, self.mul) == (other.x, other.mul)


c = CustomClass(2, True)
print(c.calc(3))
c = CustomClass(2, False)
print(c.calc(3))


@partial(jax.jit, static_argnames=("axis", "keepdims"))
def norm(x, axis, keepdims=False):
    return jnp.sqrt(jnp.sum(x ** 2, axis=axis, keepdims=keepdims))


x = jnp.arange(6.).reshape(2, 3)
print(norm(x, axis=1), norm(x, axis=0, keepdims=True))
try:
    jax.jit(lambda x, n: x * n, static_argnums=1)(x, jnp.array(2))
except ValueError as e:
    print("caught", type(e).__name__)
print(jax.jit(lambda a, b=2: a + b)(1))
print(jax.jit(lambda *xs: sum(xs))(1, 2, 3))
print(jax.jit(lambda **kw: kw["a"] - kw["b"])(a=5, b=3))
lowered = jax.jit(lambda a: a + 1).lower(jnp.ones(2))
print(lowered.compile()(jnp.ones(2)))
