"""jax.tree: the short names for pytree utilities (`jax.tree.map`, `jax.tree.leaves`, ...)."""
import dataclasses as _dataclasses

from ..tree_util import (tree_all as all, tree_broadcast as broadcast,  # noqa: F401
                        tree_flatten as flatten, tree_flatten_with_path as flatten_with_path,
                        tree_leaves as leaves, tree_leaves_with_path as leaves_with_path,
                        tree_map as map, tree_map_with_path as map_with_path,
                        tree_reduce as reduce, tree_reduce_associative as reduce_associative,
                        tree_structure as structure, tree_transpose as transpose,
                        tree_unflatten as unflatten)


def static(**kwargs):
    """`dataclasses.field(**kwargs)` marked static, for `tree_util.register_dataclass`: the
    field goes into the treedef, not the leaves.

        >>> import dataclasses
        >>> from jxkernel.tree_util import register_dataclass
        >>> @register_dataclass
        ... @dataclasses.dataclass
        ... class Op:
        ...     x: object
        ...     name: str = static(default="add")
        >>> jax.tree.leaves(Op(1.0))
        [1.0]
    """
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return _dataclasses.field(metadata=metadata, **kwargs)
