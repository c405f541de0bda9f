import jax
import jax.numpy as jnp

example_trees = [
    [1, 'a', object()],
    (1, (2, 3), ()),
    [1, {'k1': 2, 'k2': (3, 4)}, 5],
    {'a': 2, 'b': (2, 3)},
    jnp.array([1, 2, 3]),
]
for pytree in example_trees:
    leaves = jax.tree_util.tree_leaves(pytree)
    print(f"{type(pytree).__name__:<10} has {len(leaves)} leaves")

list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
print(jax.tree.map(lambda x: x * 2, list_of_lists))
print(jax.tree.map(lambda x, y: x + y, list_of_lists, list_of_lists))
leaves, treedef = jax.tree_util.tree_flatten({'a': 1, 'b': [2, (3, None)]})
print(leaves, treedef)
print(jax.tree_util.tree_unflatten(treedef, [10, 20, 30]))
print(jax.tree.structure((1, [2])), jax.tree.reduce(lambda a, b: a + b, list_of_lists, 0))
print(jax.tree_util.tree_all([True, (True, 1)]), jax.tree.leaves([None, (None,)]))
try:
    jax.tree.map(lambda x, y: x + y, [1, 2], [1, 2, 3])
except ValueError as e:
    print("caught", type(e).__name__)
print(jax.tree_util.keystr(jax.tree_util.tree_flatten_with_path({'x': [1, 2]})[0][1][0]))
print(jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure((0, 0)), [(1, 2), (3, 4)]))
