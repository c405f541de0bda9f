"""jax.tree: the short names for pytree utilities (`jax.tree.map`, `jax.tree.leaves`, ...)."""
from .tree_util import (tree_all as all, tree_flatten as flatten,  # noqa: F401
                        tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
                        tree_leaves_with_path as leaves_with_path, tree_map as map,
                        tree_map_with_path as map_with_path, tree_reduce as reduce,
                        tree_structure as structure, tree_transpose as transpose,
                        tree_unflatten as unflatten)
