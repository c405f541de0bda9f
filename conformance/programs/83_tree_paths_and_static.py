import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree
from jax.tree_util import DictKey, GetAttrKey, SequenceKey

tree = {"layer": [jnp.ones(2), (jnp.zeros(1), 3)], "scale": 2.0}
for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
    print(jax.tree_util.keystr(path), type(path[0]).__name__, getattr(leaf, "shape", leaf))
print(jax.tree_util.keystr((DictKey("a"), SequenceKey(0), GetAttrKey("w"))))
print(jax.tree_util.tree_leaves_with_path([1, {"b": 2}]))
print(jax.tree.map(lambda x: isinstance(x, tuple), tree, is_leaf=lambda x: isinstance(x, tuple)))
print(jax.tree_util.tree_structure(tree).num_nodes, jax.tree.structure(tree).num_leaves)
flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.zeros((1, 2))})
print(flat, unravel(flat + 1)["b"])
