"""jaxlib's C++ pytree registry, with registries of our own.

`jxkernel.tree_util` builds JAX's pytree API on these. We never use
`pytree.default_registry()`: jax shares that one, so a type registered by
either library would silently change the other's trees when both are imported.

    >>> leaves, treedef = default_registry.flatten({'a': (1, 2)})
    >>> leaves, treedef
    ([1, 2], PyTreeDef({'a': (*, *)}))
"""
from jaxlib import xla_client as xc  # the package __init__ has set TF_CPP_MIN_LOG_LEVEL

_pytree = xc._xla.pytree

PyTreeDef = _pytree.PyTreeDef
PyTreeRegistry = _pytree.PyTreeRegistry
SequenceKey = _pytree.SequenceKey            # str: [0]
DictKey = _pytree.DictKey                    # str: ['a']
GetAttrKey = _pytree.GetAttrKey              # str: .name
FlattenedIndexKey = _pytree.FlattenedIndexKey  # str: [<flat index 0>]
treedef_tuple = _pytree.treedef_tuple        # (registry, [treedef, ...]) -> treedef
all_leaves = _pytree.all_leaves              # (registry, iterable) -> bool

default_registry = PyTreeRegistry()
# None is a leaf here, not an empty node: for trees of optional values such as vmap's in_axes.
none_leaf_registry = PyTreeRegistry(enable_none=False)
registries = (default_registry, none_leaf_registry)  # custom nodes go into every one

# A treedef pickles its registry by reference, as `module.name`.
default_registry.__module__ = none_leaf_registry.__module__ = __name__
default_registry.__name__, none_leaf_registry.__name__ = "default_registry", "none_leaf_registry"
