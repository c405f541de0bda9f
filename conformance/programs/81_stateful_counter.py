from typing import NamedTuple

import jax
import jax.numpy as jnp

CounterState = int


class CounterV2:
    def count(self, n: CounterState) -> tuple[int, CounterState]:
        return n + 1, n + 1

    def reset(self) -> CounterState:
        return 0


counter = CounterV2()
state = counter.reset()
fast_count = jax.jit(counter.count)
for _ in range(3):
    value, state = fast_count(state)
    print(value)


class Params(NamedTuple):
    weight: jnp.ndarray
    bias: jnp.ndarray


def update(params, x, y, lr=0.1):
    grad = jax.grad(lambda p: jnp.mean((p.weight * x + p.bias - y) ** 2))(params)
    return jax.tree.map(lambda p, g: p - lr * g, params, grad)


params = Params(jnp.array(0.), jnp.array(0.))
x = jnp.arange(4.)
for _ in range(5):
    params = jax.jit(update)(params, x, 2 * x + 1)
print(params)
