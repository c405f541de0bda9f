"""jxkernel.api_util, as jax.api_util: the wrappers every transformation puts around a user
function before tracing it, for libraries that build their own (Flax's scan).

    >>> from jxkernel.extend import linear_util as lu
    >>> flat, out_tree = flatten_fun_nokwargs(lu.wrap_init(lambda a, b: {"s": a + b}),
    ...                                       tree_structure((0, 0)))
    >>> flat.call_wrapped(1, 2), out_tree()
    ([3], PyTreeDef({'s': *}))
"""
from __future__ import annotations

from ..core.avals import ShapedArray, get_aval
from ..core.source_info import function_source_info
from ..core.staging import DebugInfo
from ..transforms.linear_util import Store, WrappedFun
from ..transforms.api_util import fun_name
from ..tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_structure, tree_unflatten  # noqa: F401


def _flat_output(fun, store, *leaves, in_tree, with_kwargs):
    args = tree_unflatten(in_tree, leaves)
    out = fun(*args[0], **args[1]) if with_kwargs else fun(*args)
    out_leaves, out_tree = tree_flatten(out)
    store.store(out_tree)
    return out_leaves


def _flattened(fun: WrappedFun, in_tree, with_kwargs: bool):
    store = Store()
    wrapped = fun.wrap(lambda f, *leaves: _flat_output(f, store, *leaves, in_tree=in_tree,
                                                       with_kwargs=with_kwargs))
    return wrapped, (lambda: store.val)


def flatten_fun(fun: WrappedFun, in_tree):
    """(`fun` over the leaves of `in_tree`, a treedef of `(args, kwargs)`, returning its
    output's leaves; a getter of the output's treedef, known once it has run)."""
    return _flattened(fun, in_tree, True)


def flatten_fun_nokwargs(fun: WrappedFun, in_tree):
    """As `flatten_fun`, with `in_tree` the treedef of the tuple of positional arguments."""
    return _flattened(fun, in_tree, False)


def debug_info(traced_for: str, fun, args, kwargs, *, static_argnums=(), static_argnames=(),
               result_paths_thunk=None, sourceinfo=None, signature=None) -> DebugInfo:
    """What `fun` is, for messages about tracing it for `traced_for` (jxkernel's DebugInfo:
    its name, where it is defined, the transformation; the argument names are left to the
    tracer, which knows the flat inputs)."""
    return DebugInfo(fun_name(fun), function_source_info(fun), traced_for, None)


def shaped_abstractify(x) -> ShapedArray:
    """The abstract value of an array-like `x` (anything with a shape and a dtype)."""
    return get_aval(x)
