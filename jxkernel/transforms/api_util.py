"""Wrapping user functions over pytrees as functions over flat lists of leaves, the form
every transformation traces (JAX's `api_util.flatten_fun`)."""
from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from ..tree_util import (broadcast_flattened_prefix_with_treedef, keystr, prefix_errors,
                         register_pytree_node, tree_flatten, tree_flatten_with_path,
                         tree_structure, tree_unflatten, treedef_children)
from ..core.avals import Token, abstract_token
from ..core.errors import jax_type_text
from ..core.trace import Tracer
from .ad_util import float0


def flatten_fun(fun, in_tree, has_aux: bool = False):
    """(`fun` over the leaves of `in_tree`'s tuple of arguments, returning its output's
    leaves; a getter of the output treedef, known once the flat function has run).
    With `has_aux`, `fun` returns (output, aux) and the getter gives (treedef, aux).

    >>> flat, out_tree = flatten_fun(lambda a, b: {"s": a + b}, tree_structure((0, 0)))
    >>> flat(1, 2), out_tree()
    ([3], PyTreeDef({'s': *}))
    """
    store = []

    def flat(*leaves):
        out = fun(*tree_unflatten(in_tree, leaves))
        aux = ()
        if has_aux:
            out, aux = split_aux(out)
            aux = (aux,)
        out_leaves, out_tree = tree_flatten(out)
        store[:] = [out_tree, *aux]
        return out_leaves
    return flat, lambda: tuple(store) if has_aux else store[0]


def body_arg_names(user, in_tree, namer=None) -> tuple:
    """A name per input leaf of a loop body or branch, as JAX's debug info names them: the
    user function's parameter ("c", "x", "c['a']"); `namer` maps a wrapper's leaf path to
    (parameter index, the rest of the path), or None for a leaf of the wrapper's own
    (fori_loop's bound).

        >>> body_arg_names(lambda c, x: c, tree_structure(({"a": 0, "b": 0}, 0)))
        ("c['a']", "c['b']", 'x')
    """
    code = getattr(user, "__code__", None)
    key = (code, in_tree, getattr(namer, "__code__", None))
    found = _BODY_NAMES.get(key) if code is not None else None
    if found is None:
        found = tuple(_body_arg_names(user, in_tree, namer))
        if code is not None:
            if len(_BODY_NAMES) > 4096:
                _BODY_NAMES.clear()
            _BODY_NAMES[key] = found
    return found


# (the body's code, the inputs' treedef, the wrapper's namer) -> the names: a lambda made anew
# each time has one code, so its names are found once (each body trace asks)
_BODY_NAMES: dict = {}


def positional_parameters(fun) -> list | None:
    """The names of `fun`'s positional parameters, or None where it has no signature.

        >>> positional_parameters(lambda c, x, *rest, k=1: c)
        ['c', 'x']
    """
    try:
        return [p.name for p in inspect.signature(fun).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None


def _body_arg_names(user, in_tree, namer) -> list:
    params = positional_parameters(user) or []
    try:
        paths = [p for p, _ in tree_flatten_with_path(
            tree_unflatten(in_tree, list(range(in_tree.num_leaves))))[0]]
    except Exception:       # noqa: BLE001  (a pytree whose unflatten checks its children)
        return [f"args[{i}]" for i in range(in_tree.num_leaves)]
    names = []
    for path in paths:
        found = namer(path) if namer is not None else (path[0].idx, path[1:])
        if found is None:
            names.append("(upper bound)")
            continue
        i, rest = found
        names.append((params[i] if i < len(params) else f"args[{i}]") + keystr(tuple(rest)))
    return names


def check_callable(fun) -> None:
    """JAX's TypeErrors for what jit (and the other transformations) cannot take: a
    staticmethod object (`@jit` above `@staticmethod`), a non-callable, a generator function.

    >>> check_callable(3)
    Traceback (most recent call last):
    TypeError: Expected a callable value, got 3
    """
    if isinstance(fun, staticmethod):
        raise TypeError(f"staticmethod arguments are not supported, got {fun}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def fun_name(fun, default_name: str = "<unnamed function>") -> str:
    """`fun`'s __name__; a functools.partial's is its function's (JAX's util.fun_name)."""
    name = getattr(fun, "__name__", None)
    if name is not None:
        return name
    if isinstance(fun, functools.partial):
        return fun_name(fun.func)
    return default_name


# What a function JAX jits carries here (transforms/jit/namesakes.py): its own, not to be
# copied onto a function that wraps it (`grad(jnp.sin).lower` is no lowering of sin; on a jit
# object these would shadow its own methods). JAX's are the jit's methods, never copied.
NAMESAKE_ATTRS = ("as_jit", "lower", "trace", "eval_shape")


def update_wrapper(wrapper, wrapped):
    """functools.update_wrapper, less the jit a function JAX jits carries (NAMESAKE_ATTRS)."""
    functools.update_wrapper(wrapper, wrapped)
    for name in NAMESAKE_ATTRS:
        wrapper.__dict__.pop(name, None)
    return wrapper


def wraps(wrapped, docstr: str | None = None, **kwargs):
    """functools.wraps as JAX's transformations use it: the name of a partial or of a
    callable without one (fun_name), a docstring made from `docstr` ({fun}, {doc} and
    `kwargs` filled in), and nothing changed at all where a field cannot be set (an object
    whose __name__ is not a str: JAX's api_util.wraps gives up silently).

    >>> wraps(functools.partial(max, 1))(lambda x: x).__name__
    'max'
    """
    def wrapper(fun):
        try:
            name = fun_name(wrapped)
            doc = getattr(wrapped, "__doc__", "") or ""
            fun.__dict__.update((k, v) for k, v in getattr(wrapped, "__dict__", {}).items()
                                if k not in NAMESAKE_ATTRS)
            fun.__annotations__ = getattr(wrapped, "__annotations__", {})
            fun.__name__ = name
            fun.__module__ = getattr(wrapped, "__module__", "<unknown module>")
            fun.__doc__ = doc if docstr is None else docstr.format(fun=name, doc=doc, **kwargs)
            fun.__qualname__ = getattr(wrapped, "__qualname__", fun.__name__)
            fun.__wrapped__ = wrapped
        except Exception:   # noqa: BLE001  (JAX's behaviour: keep the wrapper's own fields)
            pass
        return fun
    return wrapper


def split_aux(out) -> tuple:
    """(output, aux) of a function differentiated with has_aux=True."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        # JAX's words (its linearize's; its jvp fails unpacking instead)
        error = TypeError(f"expected function with aux output to return a two-element "
                          f"tuple, but got type {jax_type_text(out)} with value {out!r}")
        error.output = out          # the notebook's error card reads what it was
        raise error
    return out


def merge_static(static: dict, dyn, n: int) -> list:
    """The `n` arguments of a call: `static[i]` at the positions it names, `dyn` in order
    elsewhere.

    >>> merge_static({1: "s"}, [10, 20], 3)
    [10, 's', 20]
    """
    it = iter(dyn)
    return [static[i] if i in static else next(it) for i in range(n)]


def ensure_index(x) -> int | tuple:
    """`x` as an index or a tuple of them, as JAX's api_util._ensure_index takes argnums
    (grad's, jacfwd's): anything else raises the TypeError Python's operator.index gives it.

    >>> ensure_index(np.int64(1)), ensure_index([0, 2])
    (1, (0, 2))
    >>> ensure_index(1.0)
    Traceback (most recent call last):
    TypeError: 'float' object is not iterable
    """
    try:
        return operator.index(x)
    except TypeError:
        return tuple(map(operator.index, x))


def ensure_index_tuple(x) -> tuple:
    """`x` as a tuple of indices, as JAX's api_util._ensure_index_tuple takes jit's
    static_argnums and donate_argnums.

    >>> ensure_index_tuple(1), ensure_index_tuple((0, -1))
    ((1,), (0, -1))
    >>> ensure_index_tuple((0, 1.5))
    Traceback (most recent call last):
    TypeError: 'float' object cannot be interpreted as an integer
    """
    index = ensure_index(x)
    return (index,) if isinstance(index, int) else index


def argnums_in_range(argnums, n: int) -> tuple:
    """`argnums` (an int or a sequence of them) as positions 0..n-1 of a call with `n`
    positional arguments; one outside -n..n-1 raises JAX's ValueError.

    >>> argnums_in_range((0, -1), 3)
    (0, 2)
    """
    nums = ensure_index_tuple(argnums)
    for i in nums:
        if not -n <= i < n:
            raise ValueError(f"Positional argument indices, e.g. for `static_argnums`, must "
                             f"have value greater than or equal to -len(args) and less than "
                             f"len(args), but got value {i} for len(args) == {n}.")
    return tuple(i % n for i in nums)


def partial_over(fun, nums, args, kwargs) -> tuple:
    """(`fun` of its positional arguments at `nums` (0..len(args)-1) alone, the others and
    `kwargs` fixed to the call's; those arguments): what grad and jacrev differentiate.

    >>> g, dyn = partial_over(lambda a, b, c: a - b * c, (1,), (10, 2, 3), {})
    >>> dyn, g(4)
    ((2,), -2)
    """
    def partial_fun(*dyn_args):
        full = list(args)
        for i, a in zip(nums, dyn_args):
            full[i] = a
        return fun(*full, **kwargs)
    return partial_fun, tuple(args[i] for i in nums)


class _Float0Zeros:
    """A float0 output of a traced function, held in the output's treedef rather than among
    its leaves: a node with no children whose unflatten gives `np.zeros(shape, float0)`."""
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


register_pytree_node(_Float0Zeros, lambda z: ((), z.shape),
                     lambda shape, _: np.zeros(shape, float0))


class _TokenResult:
    """A token output of a traced function, as a node over its carrier in the output's
    treedef: unflattened, a Token around the Array that carries it (JAX's result handler);
    a tracer (a jit called while tracing) or the type (eval_shape's) as it is."""
    __slots__ = ("carrier",)

    def __init__(self, carrier):
        self.carrier = carrier


register_pytree_node(_TokenResult, lambda t: ((t.carrier,), None), lambda _, xs: Token(xs[0]) if
                     getattr(xs[0], "aval", None) is abstract_token and
                     not isinstance(xs[0], Tracer) else xs[0])


def _is_float0(x) -> bool:
    return getattr(x, "dtype", None) == float0 and isinstance(x, (np.ndarray, np.generic))


def results_outside(leaves: list, treedef) -> tuple:
    """(leaves, treedef) of a jitted function's results as its caller gets them: each float0
    leaf (a cotangent of an integer input) moved from the leaves into the treedef, whose
    unflatten makes it again (a compiled computation has no float0 values: as JAX does, its
    zeros are made outside it); each token wrapped as a Token when unflattened.

    >>> leaves, tree = results_outside([1.0, np.zeros(2, float0)], tree_flatten((0, 0))[1])
    >>> leaves, tree.unflatten([2.0])[1].dtype == float0
    ([1.0], True)
    """
    tokens = [getattr(x, "aval", None) is abstract_token for x in leaves]
    if not any(tokens) and not any(_is_float0(x) for x in leaves):
        return leaves, treedef
    # (a Token itself, closed over: its carrier is the result)
    tree = treedef.unflatten([_Float0Zeros(np.shape(x)) if _is_float0(x) else
                              _TokenResult(x._buf if type(x) is Token else x) if token else x
                              for x, token in zip(leaves, tokens)])
    return tree_flatten(tree)


class PytreeLeaf:
    """A leaf of the value's tree in flatten_axes' mismatch messages, which print its class
    as JAX's do (JAX's placeholder, named as JAX names it)."""

    def __repr__(self):
        return "pytree leaf"


PytreeLeaf.__module__ = "jax._src.api_util"


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False) -> list:
    """The entry of `axis_tree` (a prefix of `treedef`'s tree, None a leaf) for each leaf of
    `treedef`, as vmap reads in_axes.

    >>> flatten_axes("in_axes", tree_structure(([1, 2], 3)), (0, None))
    [0, 0, None]
    """
    # on the treedefs, as JAX's: no tree of placeholders is unflattened, whose custom nodes'
    # unflatten could refuse them (a class converting its fields with jnp.asarray)
    axis_leaves, axis_treedef = tree_flatten(axis_tree, is_leaf=lambda x: x is None)
    try:
        return broadcast_flattened_prefix_with_treedef(axis_leaves, axis_treedef, treedef)
    except ValueError:
        if kws:             # the message is about the positional arguments only
            treedef, _ = treedef_children(treedef)
            axis_tree, _ = axis_tree
        dummy = tree_unflatten(treedef, [PytreeLeaf()] * treedef.num_leaves)
        hint = ""
        if tupled_args:
            hint += (f" Note that {name} that are non-trivial pytrees should always be "
                     f"wrapped in a tuple representing the argument list.")
            if len(treedef.children()) == 1:
                try:
                    flatten_axes(name, treedef, (axis_tree,))
                except ValueError:
                    pass        # that is not the issue
                else:
                    hint += (f" In particular, you're passing in a single argument which "
                             f"means that {name} might need to be wrapped in a singleton tuple.")
        # (a None is an empty subtree here, as in JAX's: a mismatch beside the others)
        errors = prefix_errors(axis_tree, dummy)
        details = "\n  ".join(e(name).args[0] for e in errors)
        raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                         f"value; {hint}\n  Mismatch details ({len(errors)} found):\n  "
                         f"{details}") from None


def resolve_kwargs(fun, args, kwargs) -> tuple:
    """The arguments as positions, by `fun`'s signature, its defaults filled in (JAX's
    api_util.resolve_kwargs); a keyword-only argument passed raises JAX's TypeError, and a
    functools.partial's signature is opaque, as JAX's.

    >>> resolve_kwargs(lambda x, y, z=3: None, (1,), {"y": 2})
    (1, 2, 3)
    """
    if isinstance(fun, functools.partial):
        if kwargs:
            _keywords_unresolved(kwargs)
        return args
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if any(k in kwargs for k in bound.kwargs):
        _keywords_unresolved([k for k in bound.kwargs if k in kwargs])
    return bound.args


def _keywords_unresolved(names):
    raise TypeError(f"The following keyword arguments could not be resolved to positions: "
                    f"{', '.join(names)}")


def not_an_args_tuple(what: str, given, n_args: int, wrapped) -> str:
    """JAX's message for shardings `given` as `what` that are no tuple of the `n_args`
    positional arguments; `wrapped()` raises ValueError unless `(given,)` would fit (then the
    message says to wrap it in a singleton tuple)."""
    msg = (f"{what} specification must be a tree prefix of the positional arguments tuple. "
           f"In particular, {what} must either be a Sharding, a PartitionSpec, or a tuple "
           f"of length equal to the number of positional arguments.")
    if type(given) is not tuple:
        msg += f" But {what} is not a tuple: got {type(given)} instead."
    else:
        msg += (f" But {what} is the wrong length: got a tuple or list of length "
                f"{len(given)} for an args tuple of length {n_args}.")
    if n_args == 1:
        try:
            wrapped()
        except ValueError:
            return msg              # not the issue
        msg += (f" Given the corresponding argument being passed, it looks like {what} "
                f"might need to be wrapped in a singleton tuple.")
    return msg


def flatten_axis_resources(what: str, tree, shardings, tupled_args: bool) -> tuple:
    """One sharding (or None) per leaf of `tree` from `shardings`, a prefix of its tree
    (jit's in/out_shardings), as JAX's api_util.flatten_axis_resources; where it is not a
    prefix, JAX's ValueError: for the arguments tuple (`tupled_args`) what the tuple should
    be, else each mismatch.

    >>> flatten_axis_resources("in_shardings", tree_structure(([1, 2], 3)), (None, None), True)
    (None, None, None)
    """
    try:
        return tuple(flatten_axes(what, tree, shardings))
    except ValueError:
        pass
    n_args = len(tree.children())
    if tupled_args and (type(shardings) is not tuple or len(shardings) != n_args):
        raise ValueError(not_an_args_tuple(what, shardings, n_args,
                                           lambda: flatten_axes(what, tree, (shardings,))))
    dummy = tree_unflatten(tree, [PytreeLeaf()] * tree.num_leaves)
    errors = prefix_errors(shardings, dummy)
    raise ValueError(f"Mismatch details ({len(errors)} found):\n"
                     + "\n".join(e(what).args[0] for e in errors))
