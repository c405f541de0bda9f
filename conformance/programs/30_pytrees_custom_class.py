from dataclasses import dataclass

import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node, register_pytree_node_class


class MyContainer:
    def __init__(self, name, a, b, c):
        self.name, self.a, self.b, self.c = name, a, b, c


def flatten_MyContainer(container):
    return [container.a, container.b, container.c], container.name


def unflatten_MyContainer(aux_data, flat_contents):
    return MyContainer(aux_data, *flat_contents)


register_pytree_node(MyContainer, flatten_MyContainer, unflatten_MyContainer)
trees = [MyContainer('Alice', 1, 2, 3), MyContainer('Bob', 4, 5, 6)]
print(jax.tree_util.tree_leaves(trees))
print(jax.tree.map(lambda x: x + 1, trees)[1].c)


@register_pytree_node_class
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten(self):
        return (self.x, self.y), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


p = jax.jit(lambda p: Point(p.x + p.y, p.x * p.y))(Point(jnp.float32(2), jnp.float32(3)))
print(p.x, p.y)
print(jax.grad(lambda p: p.x * p.y)(Point(2.0, 5.0)).x)


@jax.tree_util.register_dataclass
@dataclass
class Params:
    w: jax.Array
    b: jax.Array


ps = Params(jnp.ones(2), jnp.zeros(()))
print(jax.tree.leaves(ps), jax.tree.map(lambda v: v.shape, ps))
print(jax.grad(lambda q: jnp.sum(q.w * 3) + q.b)(ps))
