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
from ..transforms.api_util import argnums_in_range as _argnums_in_range
from ..transforms.api_util import flatten_axes, flatten_axis_resources, fun_name  # noqa: F401
from ..transforms.api_util import resolve_kwargs  # noqa: F401
from ..transforms.jit.args import infer_by_signature as infer_argnums_and_argnames  # noqa: F401
from ..transforms.jit.args import resolve_argnums  # noqa: F401
from ..tree_util import (keystr, tree_flatten, tree_flatten_with_path,  # noqa: F401
                         tree_structure, tree_unflatten)
from ..tree_util import treedef_children
from ._src.util import safe_map  # noqa: F401


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


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
    """The donated argument numbers counted among the non-static arguments only.

    >>> rebase_donate_argnums((3, 4), (0, 1))
    (1, 2)
    """
    static, donate = set(static_argnums), sorted(set(donate_argnums))
    if static & set(donate):
        raise ValueError(f"`static_argnums` {sorted(static)} and `donate_argnums` {donate} "
                         f"cannot intersect.")
    return tuple(d - sum(s < d for s in static) for d in donate)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True) -> tuple:
    """One bool per leaf of `in_tree` (a treedef of `(args, kwargs)`, or of `args` alone with
    kws=False): whether that leaf's argument is donated.

    >>> donation_vector((1,), (), tree_structure(((1, (2, 3)), {})))
    (False, True, True)
    """
    args_tree, kwargs_tree = treedef_children(in_tree) if kws else (in_tree, None)
    out = []
    for i, arg in enumerate(args_tree.children()):
        out += [i in donate_argnums] * arg.num_leaves
    if kwargs_tree is not None:
        keys = sorted(tree_unflatten(kwargs_tree, [0] * kwargs_tree.num_leaves))
        for key, val in zip(keys, kwargs_tree.children()):
            out += [key in donate_argnames] * val.num_leaves
    return tuple(out)


class _StrictlyEqual:
    """A static argument as a cache key: equal only to a value of the very same type."""
    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val

    def __hash__(self):
        return hash(self.val)

    def __eq__(self, other):
        return type(self.val) is type(other.val) and self.val == other.val


def argnums_partial(f: WrappedFun, dyn_argnums, args, require_static_args_hashable=True):
    """(`f` over the arguments numbered `dyn_argnums` only, the others fixed to `args`'
    values; those dynamic arguments).

    >>> from jxkernel.extend import linear_util as lu
    >>> g, dyn = argnums_partial(lu.wrap_init(lambda a, b: a - b), (1,), (10, 3))
    >>> g.call_wrapped(*dyn)
    7
    """
    dyn_argnums = _argnums_in_range(dyn_argnums, len(args))
    fixed = [a for i, a in enumerate(args) if i not in dyn_argnums]
    if require_static_args_hashable:
        for i, a in enumerate(args):
            if i not in dyn_argnums and not _hashable(a):
                raise ValueError(f"Non-hashable static arguments are not supported, as this "
                                 f"can lead to unexpected cache-misses. Static argument (index "
                                 f"{i}) of type {type(a)} for function {f.__name__} is "
                                 f"non-hashable.")
        fixed = [_StrictlyEqual(a) for a in fixed]

    def with_fixed(fun, *dyn_args, **kwargs):
        dyn, rest = dict(zip(dyn_argnums, dyn_args)), iter(fixed)
        full = [dyn[i] if i in dyn else next(rest) for i in range(len(fixed) + len(dyn_args))]
        return fun(*[getattr(a, "val", a) if type(a) is _StrictlyEqual else a for a in full],
                   **kwargs)
    return f.wrap(with_fixed), tuple(args[i] for i in dyn_argnums)


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True
