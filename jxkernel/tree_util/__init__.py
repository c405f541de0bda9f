"""Pytrees: JAX's `jax.tree_util` API (names, signatures, semantics and reprs of JAX 0.10.2).

A pytree is a nest of containers (tuple, list, dict, None, namedtuple, OrderedDict,
defaultdict, dataclasses and classes registered here) whose non-container parts are
leaves. `tree_flatten` splits one into its leaves and a `PyTreeDef` (the structure).

Flattening, unflattening, key paths, treedef equality/hash/repr all run in jaxlib's
C++ pytree registry (the one JAX uses), on a registry of our own (`jxkernel.xla.pytree`).
Where jaxlib is missing (Pyodide, JupyterLite) `pure.py`, the same registry written in
Python, takes its place; JXKERNEL_PURE_PYTREES=1 picks it where jaxlib is present too.
Why not pure Python: jit flattens its arguments on every call, and `tree_flatten` of
`((x, y), {'a': z})` takes ~0.4 us here, against ~1.4 us for a bare Python recursion that
knows only tuple/list/dict and builds no hashable treedef. C++ treedefs also hash and
compare in <0.1 us (they are jit cache keys) and print exactly as JAX's do. The registry
supports everything the API needs (is_leaf, key paths, custom nodes with keys, dataclass
nodes), so this module is only the Python layer above it: registration helpers, key
strings, `Partial`, and JAX's structure-mismatch errors.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import operator
import os
import textwrap
from typing import Any, Callable

if os.environ.get("JXKERNEL_PURE_PYTREES", "0") not in ("", "0"):
    from . import pure as _pytree
else:
    try:
        from ..xla import pytree as _pytree
    except ModuleNotFoundError as e:   # no jaxlib: the Python registry; any other failure is a bug
        if (e.name or "").partition(".")[0] != "jaxlib":
            raise
        from . import pure as _pytree

from ..core.errors import jax_type_text as _jax_type_text  # classes as JAX names them
from . import recursion_room as _room

DictKey, FlattenedIndexKey = _pytree.DictKey, _pytree.FlattenedIndexKey
GetAttrKey = _pytree.GetAttrKey
PyTreeDef, SequenceKey = _pytree.PyTreeDef, _pytree.SequenceKey
default_registry, registries = _pytree.default_registry, _pytree.registries

# the tree functions JAX 0.6.0 removed from `jax` (JAX 0.10.2's CHANGELOG, "Several
# previously-deprecated APIs have been removed"), with what replaces each: pages written
# before (JAX 101's pytrees chapter: jax.tree_map) meet JAX's bare "has no attribute" there.
# Read by the `jax` alias (as_jax.py) and the removed-name card (views/error_cards); private:
# JAX's jax.tree_util has no such name.
_REMOVED_IN_0_6 = {"tree_map": "jax.tree.map", "tree_leaves": "jax.tree.leaves",
                   "tree_structure": "jax.tree.structure", "tree_transpose": "jax.tree.transpose",
                   "tree_flatten": "jax.tree.flatten", "tree_unflatten": "jax.tree.unflatten",
                   "treedef_is_leaf": "jax.tree_util.treedef_is_leaf"}

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial", "PyTreeDef",
    "SequenceKey", "all_leaves", "default_registry", "flatten_one_level",
    "flatten_one_level_with_keys", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple",
]

KeyEntry = Any                 # SequenceKey | DictKey | GetAttrKey | FlattenedIndexKey | user key
KeyPath = tuple[KeyEntry, ...]
IsLeaf = Callable[[Any], bool] | None

# ---------------------------------------------------------------- flatten / unflatten

def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list, PyTreeDef]:
    """Leaves (left to right, dicts by sorted key) and structure of `tree`.

    >>> tree_flatten((1, {'b': 2, 'a': None}))
    ([1, 2], PyTreeDef((*, {'a': None, 'b': *})))
    """
    try:
        return default_registry.flatten(tree, is_leaf)
    except BaseException:   # what it kept of the recursion room, given back (recursion_room)
        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
        _room.settle()
        raise


def tree_unflatten(treedef: PyTreeDef, leaves) -> Any:
    """Inverse of `tree_flatten`: `tree_unflatten(tree_structure([0, 0]), 'ab') == ['a', 'b']`."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list:
    """`tree_leaves([1, (2, None)]) == [1, 2]`"""
    try:
        return default_registry.flatten(tree, is_leaf)[0]
    except BaseException:   # what it kept of the recursion room, given back (recursion_room)
        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
        _room.settle()
        raise


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> PyTreeDef:
    """`tree_structure([1, 2])` is `PyTreeDef([*, *])`."""
    try:
        return default_registry.flatten(tree, is_leaf)[1]
    except BaseException:   # what it kept of the recursion room, given back (recursion_room)
        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
        _room.settle()
        raise


def treedef_tuple(treedefs) -> PyTreeDef:
    """A tuple of the given structures:
    `treedef_tuple([tree_structure(1)]) == tree_structure((1,))`."""
    return _pytree.treedef_tuple(default_registry, list(treedefs))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Structures of the root's children: `[PyTreeDef(*), PyTreeDef((*,))]` for `[1, (2,)]`."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single node: a leaf, or an empty container such as `None` or `()`."""
    return treedef.num_nodes == 1


def _is_strict_leaf(treedef: PyTreeDef) -> bool:
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def all_leaves(iterable, is_leaf: IsLeaf = None) -> bool:
    """Whether every element is a leaf: `all_leaves([1, 2])` but not `all_leaves([1, (2,)])`."""
    if is_leaf is None:
        return _pytree.all_leaves(default_registry, iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """Whether `typ` is a container type (built in, namedtuple, or registered)."""
    return default_registry.is_node(typ)


def flatten_one_level(tree: Any) -> tuple[Any, Any]:
    """Children and aux data of the root node.

    >>> flatten_one_level({'b': 1, 'a': 2})
    ((2, 1), ('a', 'b'))
    """
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any) -> tuple[Any, Any]:
    """Like `flatten_one_level`, with children as `(key, child)` pairs."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def leaves_within(tree, max_depth: int = 64):
    """The leaves of `tree`, or None where a node cannot be flattened or the tree is nested
    deeper than `max_depth` (a dict that holds itself is).

        >>> leaves_within({'f': abs, 'k': [1, 2]})
        [<built-in function abs>, 1, 2]
        >>> env = {'a': 1, 'z': 2}; env['itself'] = env
        >>> leaves_within(env) is None
        True

    For reading values the learner did not hand to a transform (what a closure holds, a
    cell's globals): one level at a time, not tree_leaves, because jaxlib 0.10.2's recursive
    flatten, when it raises below a tree's top, never gives back the recursion depth it took
    (JAX's own pytrees alike). A dict holding itself took all of it: every later call in the
    process raised RecursionError (docs/contributing.md, "When a worker crashes")."""
    leaves, todo = [], [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        try:
            out = default_registry.flatten_one_level(node)     # None: a leaf
        except Exception:       # noqa: BLE001  (the learner's flatten, whatever it raises)
            return None
        if out is None:
            leaves.append(node)
        elif depth == max_depth:
            return None
        else:
            todo.extend((child, depth + 1) for child in reversed(list(out[0])))
    return leaves


# ---------------------------------------------------------------- map / reduce

def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """Apply `f` leaf-wise; each tree in `rest` must have `tree` as a prefix.

    >>> tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])
    [11, (22, 33)]
    """
    try:
        leaves, treedef = default_registry.flatten(tree, is_leaf)
    except BaseException:   # what it kept of the recursion room, given back (recursion_room)
        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
        _room.settle()
        raise
    if not rest:
        return treedef.unflatten(map(f, leaves))
    rest_leaves = _flatten_rest(treedef, tree, rest, is_leaf, "tree_map")
    if type(rest_leaves) is not list:   # (raised here, as JAX's tree_map raises it)
        raise rest_leaves from None
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *rest_leaves))


def _flatten_rest(treedef, tree, rest, is_leaf, who):
    """The leaves of each of `rest` flattened up to `treedef`, or the error to raise where one
    differs: the caller raises it from its own frame, as JAX's tree_map (whose traceback shows
    tree_map alone)."""
    out = []
    for i, r in enumerate(rest):
        try:
            out.append(treedef.flatten_up_to(r))
        except Exception as e:  # C++ says what differs; find where, as JAX does
            err = next(_prefix_error((), tree, r, is_leaf), None)
            if err is None:
                return e.with_traceback(None)
            # the two structures, and which of `rest` differs, for the notebook's card
            # (views/error_cards/trees.py), which recognizes (value, grads) passed whole
            error = err(f"{who} tree")
            error.structures, error.rest_index = (treedef, tree_structure(r, is_leaf)), i
            return error
    return out


_NO_INIT = object()  # tree_reduce's initializer may be None, so "not given" needs its own value


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: IsLeaf = None) -> Any:
    """`functools.reduce` over the leaves: `tree_reduce(operator.add, [1, (2, 3)]) == 6`."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                            identity: Any = _NO_INIT, is_leaf: IsLeaf = None) -> Any:
    """Reduce the leaves pairwise as a balanced tree (`operation` must be associative)."""
    def reduce(xs):
        if len(xs) == 1:
            return xs[0]
        return operation(reduce(xs[:len(xs) // 2]), reduce(xs[len(xs) // 2:]))
    leaves = tree_leaves(tree, is_leaf)
    if leaves:
        return reduce(leaves)
    if identity is _NO_INIT:
        raise TypeError("Must specify identity for parallel reduction of empty sequence.")
    return identity


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    """`all(tree_leaves(tree))`: `tree_all([1, (True, 0)])` is False."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn an outer-of-inner tree into an inner-of-outer one.

    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_in * n_out:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef.compose(inner_treedef)}")
    rows = [flat[i * n_in:(i + 1) * n_in] for i in range(n_out)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in zip(*rows))


def broadcast_prefix(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> list:
    """Leaves of `prefix_tree`, each repeated once per leaf of the subtree of `full_tree` it covers.

    >>> broadcast_prefix((0, None), ([1, 2], 3), is_leaf=lambda x: x is None)   # vmap's in_axes
    [0, 0, None]
    """
    out = []
    try:
        tree_map(lambda x, sub: out.extend([x] * tree_structure(sub).num_leaves), prefix_tree,
                 full_tree, is_leaf=is_leaf)
    except ValueError:
        e, *_ = prefix_errors(prefix_tree, full_tree, is_leaf)
        raise e("broadcast_prefix prefix_tree") from None
    return out


def broadcast_flattened_prefix_with_treedef(prefix_leaves: list, prefix_treedef: PyTreeDef,
                                            full_treedef: PyTreeDef) -> list:
    """broadcast_prefix on flattened trees: each of `prefix_leaves` (the leaves of a tree of
    structure `prefix_treedef`) repeated once per leaf of the part of `full_treedef` it covers.
    A ValueError where `prefix_treedef` is no prefix of `full_treedef`.

    >>> broadcast_flattened_prefix_with_treedef([1, 2], tree_structure((0, 0)),
    ...                                         tree_structure(([0, 0], 0)))
    [1, 1, 2]
    """
    out, leaves = [], iter(prefix_leaves)

    def walk(prefix: PyTreeDef, full: PyTreeDef):
        if _is_strict_leaf(prefix):
            out.extend([next(leaves)] * full.num_leaves)
            return
        if _is_strict_leaf(full):
            raise ValueError("`prefix_treedef` is not a prefix of `full_treedef`")
        if prefix.node_data() != full.node_data():      # JAX's words
            raise ValueError(f"expected {full.node_data()}, got {prefix.node_data()}")
        for p, f in zip(prefix.children(), full.children(), strict=True):
            walk(p, f)

    walk(prefix_treedef, full_treedef)
    return out


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> Any:
    """`prefix_tree` with each leaf copied over the matching subtree of `full_tree`.

    >>> tree_broadcast([1, 2], [[3, 4], {'a': 5}])
    [[1, 1], {'a': 2}]
    """
    return tree_structure(full_tree).unflatten(broadcast_prefix(prefix_tree, full_tree, is_leaf))

# ---------------------------------------------------------------- key paths

def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like `tree_flatten`, with each leaf paired with its key path.

    >>> tree_flatten_with_path({'a': [7]})[0]
    [((DictKey(key='a'), SequenceKey(idx=0)), 7)]
    """
    if is_leaf is not None and not is_leaf_takes_path:
        is_leaf_ = is_leaf
        is_leaf = lambda _, x: is_leaf_(x)
    try:
        return default_registry.flatten_with_path(tree, is_leaf)
    except BaseException:   # what it kept of the recursion room, given back (recursion_room)
        _room.LEVELS.value += _room.LEND   # lent first: no call has room before
        _room.settle()
        raise


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """`(key_path, leaf)` pairs: `[((SequenceKey(idx=0),), 1)]` for `[1]`."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """`tree_map` where `f` also gets each leaf's key path first.

    >>> tree_map_with_path(lambda p, x: keystr(p), {'a': [1, 2]})
    {'a': ["['a'][0]", "['a'][1]"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    rest_leaves = _flatten_rest(treedef, tree, rest, None if is_leaf_takes_path else is_leaf,
                                "tree_map_with_path")
    if type(rest_leaves) is not list:   # (raised here, as JAX's tree_map_with_path raises it)
        raise rest_leaves from None
    return treedef.unflatten(f(p, x, *xs) for (p, x), *xs in zip(pairs, *rest_leaves))


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: `"['a'][0].x"`, or with `simple=True, separator='/'`: `'a/0/x'`."""
    return separator.join(map(_simple_entrystr if simple else str, keys))


def _simple_entrystr(key: KeyEntry) -> str:
    match key:
        case SequenceKey(idx=k) | DictKey(key=k) | GetAttrKey(name=k) | FlattenedIndexKey(key=k):
            return str(k)
    return str(key)

# ---------------------------------------------------------------- registration

# The types registered from Python, with their flatten and unflatten functions (JAX's
# `_registry`, which libraries read to ask "is this type a registered node?"): the built-in
# containers, and every type registered through the functions below. The standard library's
# other containers, which JAX registers in C++, stay out, as in JAX.
_RegistryEntry = collections.namedtuple("_RegistryEntry", ["to_iter", "from_iter"])
_registry: dict = {
    tuple: _RegistryEntry(lambda xs: (xs, None), lambda _, xs: tuple(xs)),
    list: _RegistryEntry(lambda xs: (xs, None), lambda _, xs: list(xs)),
    dict: _RegistryEntry(lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
                         lambda keys, xs: dict(zip(keys, xs))),
    type(None): _RegistryEntry(lambda _: ((), None), lambda _, xs: None),
}


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make `nodetype` a container.

    `flatten_func(x) -> (children, aux_data)`, `unflatten_func(aux_data, children) -> x`;
    aux_data is static (part of the treedef, so hashable and comparable with `==`).
    Without `flatten_with_keys_func` the children's keys are `FlattenedIndexKey(i)`.

    >>> class Point:
    ...     def __init__(self, x, y): self.x, self.y = x, y
    >>> register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda _, xy: Point(*xy))
    >>> tree_leaves([Point(1, 2), 3])
    [1, 2, 3]
    """
    for registry in registries:
        registry.register_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)
    _registry[nodetype] = _RegistryEntry(flatten_func, unflatten_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable, unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Like `register_pytree_node`, but `flatten_with_keys(x) -> ([(key, child), ...], aux_data)`.

    >>> class Point:
    ...     def __init__(self, x, y): self.x, self.y = x, y
    >>> register_pytree_with_keys(
    ...     Point, lambda p: (((GetAttrKey('x'), p.x), (GetAttrKey('y'), p.y)), None),
    ...     lambda _, xy: Point(*xy))
    >>> [keystr(path) for path, _ in tree_leaves_with_path(Point(1, 2))]
    ['.x', '.y']
    """
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: `cls` defines `tree_flatten(self) -> (children, aux)` and
    classmethod `tree_unflatten(cls, aux, children)`."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: `cls` defines `tree_flatten_with_keys(self)` and classmethod
    `tree_unflatten`."""
    flatten_func = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


# type -> (data fields, meta fields) of each register_dataclass: a recompile note for a meta
# field's new value writes the learner's registration with that field made data
_dataclass_fields: dict = {}


def register_dataclass(nodetype: type, data_fields=None, meta_fields=None, drop_fields=()) -> type:
    """Make a dataclass-like type a container; data fields are children, meta fields static aux
    data.

    On a dataclass both lists may be omitted: fields declared with
    `dataclasses.field(metadata=dict(static=True))` are meta, the rest data.
    Unflattening calls `nodetype(**fields)`. Returns `nodetype`, so it works as a decorator:

    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Params:
    ...     w: Any
    ...     n: int = dataclasses.field(default=1, metadata=dict(static=True))
    >>> tree_flatten(Params(w=2.0))
    ([2.0], PyTreeDef(CustomNode(Params[(1,)], [*])))
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be specified"
                            f" when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required when"
                            f" nodetype is not a dataclass. Got {nodetype=}.")
        # Unlike JAX 0.10.2, which then rejects them as unexpected, leave drop_fields out here.
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = list(data_fields), list(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if {*meta_fields, *data_fields} != init_fields:
            msg = ("data_fields and meta_fields must include all dataclass fields with "
                   "``init=True`` and only them.")
            if missing := init_fields - {*meta_fields, *data_fields}:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to suppress this "
                        f"error.")
            if unexpected := {*meta_fields, *data_fields} - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f"data_fields and meta_fields must not overlap. Overlapping fields: "
                         f"{overlap}.")
    for registry in registries:
        registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    _registry[nodetype] = _RegistryEntry(
        lambda x: (tuple(getattr(x, n) for n in data_fields),
                   tuple(getattr(x, n) for n in meta_fields)),
        lambda meta, data: nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data))))
    _dataclass_fields[nodetype] = (tuple(data_fields), tuple(meta_fields))
    return nodetype



def register_static(cls: type) -> type:
    """Class decorator: instances are leafless nodes, held whole in the treedef (so must be
    hashable)."""
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


register_pytree_with_keys(  # keeps insertion order, unlike dict
    collections.OrderedDict,
    lambda d: (tuple((DictKey(k), v) for k, v in d.items()), tuple(d)),
    lambda keys, values: collections.OrderedDict(zip(keys, values, strict=True)))


def _flatten_defaultdict_with_keys(d):
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict, _flatten_defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values, strict=True)))
for _container in (collections.OrderedDict, collections.defaultdict):   # C++-registered in JAX
    del _registry[_container]

# ---------------------------------------------------------------- Partial

class _HashableCallableShim:
    """Hides that a function is a functools.partial (see `Partial.__new__`), delegating
    call/eq/hash."""
    def __init__(self, fun): self.fun = fun
    def __call__(self, *args, **kw): return self.fun(*args, **kw)
    def __hash__(self): return hash(self.fun)
    def __eq__(self, other):
        return self.fun == (other.fun if isinstance(other, _HashableCallableShim) else other)
    def __repr__(self): return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: the function is static, args and kwargs are children.

    >>> add1 = Partial(operator.add, 1)
    >>> tree_flatten(add1)
    ([1], PyTreeDef(CustomNode(Partial[<built-in function add>], [(*,), {}])))
    """
    def __new__(klass, func, *args, **kw):
        # functools.partial merges a partial `func` into the new one, which would move its bound
        # arguments into our children; the shim (which has no `.func` until after __new__)
        # stops that.
        if isinstance(func, functools.partial):
            original, func = func, _HashableCallableShim(func)
            out = super().__new__(klass, func, *args, **kw)
            func.func, func.args, func.keywords = original.func, original.args, original.keywords
            return out
        return super().__new__(klass, func, *args, **kw)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, xs: Partial(func, *xs[0], **xs[1]))

# ---------------------------------------------------------------- structure errors (JAX's wording)

def _child_keys(tree: Any) -> KeyPath:
    return tuple(k for k, _ in flatten_one_level_with_keys(tree)[0])


def prefix_errors(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> list:
    """Why `prefix_tree` is not a prefix of `full_tree`: a list of `name -> ValueError` makers."""
    return list(_prefix_error((), prefix_tree, full_tree, is_leaf))


def _prefix_error(path, prefix, full, is_leaf):
    if _is_strict_leaf(tree_structure(prefix, is_leaf)):  # a leaf is a prefix of anything
        return
    where = lambda name: (f"    {name}{keystr(path)}\n"
                          f"At that key path, the prefix pytree {name} has a subtree of type")
    if type(prefix) != type(full):
        yield lambda name: ValueError(
            f"pytree structure error: different types at key path\n{where(name)}\n"
            f"    {_jax_type_text(prefix)}\n"
            "but at the same key path the full pytree has a subtree of different type\n"
            f"    {_jax_type_text(full)}.")
        return
    (p_children, p_meta), (f_children, f_meta) = flatten_one_level(prefix), flatten_one_level(full)
    p_children, f_children = tuple(p_children), tuple(f_children)
    p_keys, f_keys = _child_keys(prefix), _child_keys(full)
    if isinstance(prefix, (list, tuple)):  # report lengths rather than integer keys
        if len(prefix) != len(full):
            ty = type(prefix).__name__
            yield lambda name: ValueError(
                f"pytree structure error: different lengths of {ty} at key path\n{where(name)} "
                f"{ty} of length {len(prefix)}, but the full pytree has a subtree of the same type "
                f"but of length {len(full)}.")
            return
    elif len(p_children) != len(f_children):
        try:
            diff = set(p_keys).symmetric_difference(f_keys)
        except TypeError:
            diff = None
        keys = lambda ks: " ".join(map(_simple_entrystr, ks))
        yield lambda name: ValueError(
            f"pytree structure error: different numbers of pytree children at key path\n"
            f"{where(name)}\n"
            f"    {type(prefix)}\nwith {len(p_children)} child keys\n    {keys(p_keys)}\n"
            f"but at the same key path the full pytree has a subtree of the same type but with "
            f"{len(f_children)} child keys\n    {keys(f_keys)}\n"
            + ("" if diff is None else
               f"so the symmetric difference on key sets is\n    {keys(diff)}"))
        return
    if p_meta != f_meta:
        p_str, f_str = str(p_meta), str(f_meta)
        import difflib   # here: only this error message needs it
        diff = textwrap.indent("\n".join(difflib.ndiff(p_str.splitlines(), f_str.splitlines())),
                               "    ")
        yield lambda name: ValueError(
            f"pytree structure error: different pytree metadata at key path\n{where(name)}\n"
            f"    {type(prefix)}\nwith metadata\n    {p_str}\nbut at the same key path the full "
            f"pytree has a subtree of the same type but with metadata\n    {f_str}\n"
            f"so the diff in the metadata at these pytree nodes is\n{diff}")
        return
    for k, p, f in zip(p_keys, p_children, f_children):  # roots agree, so a subtree differs
        yield from _prefix_error((*path, k), p, f, is_leaf)


def equality_errors(tree1: Any, tree2: Any, is_leaf: IsLeaf = None):
    """Yield `(key_path, thing1, thing2, explanation)` for each place two trees' structures differ.

    For messages such as "true_fun and false_fun output must have identical types":
    f"{keystr(path)} is a {thing1} in value 1 and a {thing2} in value 2, so {explanation}."
    """
    yield from _equality_errors((), tree1, tree2, is_leaf)


class _LeafMeta(type):
    def __repr__(cls):
        return "pytree leaf"


class _Leaf(metaclass=_LeafMeta):
    """A stand-in leaf whose type prints as "pytree leaf" (equality_errors_pytreedef)."""

    def __repr__(self):
        return "pytree leaf"


_LEAF = _Leaf()


def equality_errors_pytreedef(tree1: PyTreeDef, tree2: PyTreeDef):
    """`equality_errors` of two treedefs, a leaf named "pytree leaf".

    >>> [e[1:] for e in equality_errors_pytreedef(tree_structure(1), tree_structure((1,)))]
    [('pytree leaf', "<class 'tuple'>", 'their Python types differ')]
    """
    return equality_errors(stand_in_tree(tree1), stand_in_tree(tree2))


def stand_in_tree(treedef: PyTreeDef) -> Any:
    """`treedef`'s tree with a stand-in at each leaf whose type prints as "pytree leaf", for
    `equality_errors` of a tree built from it (a jit's inputs with their Static nodes).

    >>> stand_in_tree(tree_structure((1, 2)))
    (pytree leaf, pytree leaf)
    """
    return tree_unflatten(treedef, [_LEAF] * treedef.num_leaves)


@register_static
@dataclasses.dataclass(frozen=True, slots=True)
class Static:
    """A static argument in the tree of a jit's inputs as JAX keys its tracing cache (a node
    with no children, its value the node's metadata), for jax_explain_cache_misses' lines in
    JAX's words: "now <class 'jax._src.tree_util.Static'> with pytree metadata Static(val=3)".
    Equal where the values are equal and of one type (1 and True are two programs, as in
    JAX).

    >>> Static(1) == Static(True), Static(2) == Static(2)
    (False, True)
    """
    val: Any

    def __eq__(self, other):
        return type(other) is Static and type(self.val) is type(other.val) and \
            self.val == other.val

    def __hash__(self):
        return hash((type(self.val), self.val))

    def __repr__(self):
        return f"Static(val={_repr_as_jax(self.val)})"


Static.__module__ = "jax._src.tree_util"     # its class printed as JAX prints its own


def _repr_as_jax(value) -> str:
    """`value`'s repr as JAX prints its own: an object of one of jxkernel's classes under its
    JAX home (custom_jvp's is jxkernel._src.custom_derivatives, for pickles) that keeps
    object's repr named from JAX's module, as a static jax.nn.relu is in JAX's log.

    >>> class custom_jvp: pass
    >>> custom_jvp.__module__ = "jxkernel._src.custom_derivatives"
    >>> _repr_as_jax(custom_jvp()).split(" at ")[0], _repr_as_jax(3)
    ('<jax._src.custom_derivatives.custom_jvp object', '3')
    """
    text = repr(value)
    module = getattr(type(value), "__module__", None) or ""
    if type(value).__repr__ is object.__repr__ and module.startswith("jxkernel._src."):
        return text.replace(f"<{module}.", f"<jax{module[len('jxkernel'):]}.", 1)
    return text


def _equality_errors(path, t1, t2, is_leaf):
    if _is_strict_leaf(tree_structure(t1, is_leaf)) and \
            _is_strict_leaf(tree_structure(t2, is_leaf)):
        return
    if type(t1) != type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        ty = type(t1).__name__
        yield (path, f"{ty} of length {len(t1)}", f"{ty} of length {len(t2)}",
               "the lengths do not match")
        return
    (c1, meta1), (c2, meta2) = flatten_one_level(t1), flatten_one_level(t2)
    c1, c2, keys1, keys2 = tuple(c1), tuple(c2), _child_keys(t1), _child_keys(t2)
    if len(c1) != len(c2):
        try:
            diff = " ".join(repr(k.key) for k in set(keys1).symmetric_difference(keys2))
        except Exception:
            diff = ""
        child = lambda n: f"{n} child{'ren' if n > 1 else ''}"
        yield (path, f"{type(t1)} with {child(len(c1))}", f"{type(t2)} with {child(len(c2))}",
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
        return
    for k, a, b in zip(keys1, c1, c2):
        yield from _equality_errors((*path, k), a, b, is_leaf)
