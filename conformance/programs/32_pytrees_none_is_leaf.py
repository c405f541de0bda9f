import jax
import jax.numpy as jnp
from jax.tree_util import Partial

print(jax.tree.leaves([None, None, None]))
print(jax.tree.leaves([None, None, None], is_leaf=lambda x: x is None))
tree = {"a": (1, 2), "b": [3, {"c": 4}]}
print(jax.tree.leaves(tree, is_leaf=lambda x: isinstance(x, tuple)))
print(jax.tree_util.tree_map_with_path(lambda path, x: f"{jax.tree_util.keystr(path)}={x}", tree))
print(jax.tree.flatten([jnp.zeros(2), ()])[1].num_leaves)


def add(a, b):
    return a + b


plus_one = Partial(add, 1.0)
print(jax.jit(lambda f, x: f(x))(plus_one, 2.0))
print(jax.tree.leaves(plus_one))
print(jax.tree.map(lambda x, y: (x, y), [1, 2], [3, 4]))
print(jax.tree_util.tree_map(lambda x: x is None, [None, 1], is_leaf=lambda x: x is None))
