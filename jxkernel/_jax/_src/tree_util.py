"""jxkernel._src.tree_util, as jax._src.tree_util: `jax.tree_util`'s functions, and `_registry`,
the types registered from Python (the built-in containers and every type registered since),
which libraries read to ask whether a type is a pytree node.

    >>> tuple in _registry, collections.OrderedDict in _registry
    (True, False)
"""
import collections  # noqa: F401  (the docstring's example)

from ...tree_util import *  # noqa: F401,F403
from ...tree_util import (_registry, _RegistryEntry,  # noqa: F401
                          broadcast_flattened_prefix_with_treedef, prefix_errors)

# JAX's registry for its C++ dispatch, holding every node of the default one (and internal
# types jxkernel's dispatch does not unpack): jxkernel's jit flattens with the default one
dispatch_registry = default_registry  # noqa: F405


def treedef_is_strict_leaf(treedef) -> bool:
    """Whether `treedef` is one leaf itself (not None, not a node holding a single leaf).

    >>> treedef_is_strict_leaf(tree_structure(1)), treedef_is_strict_leaf(tree_structure((1,)))
    (True, False)
    """
    return treedef.num_nodes == 1 and treedef.num_leaves == 1
