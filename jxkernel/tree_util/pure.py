"""jaxlib's pytree registry rewritten in Python, for where jaxlib cannot be installed.

The same API as `jxkernel.xla.pytree` (jaxlib's C++ `pytree` module), with the same
behaviour: leaf order, treedef reprs, equality, key paths, and the text of every error.
`jxkernel.tree_util` uses it when jaxlib is missing (Pyodide, JupyterLite) or when
JXKERNEL_PURE_PYTREES=1; tests/tree_util/test_pytree_differential.py holds the two to each other.

    >>> leaves, treedef = default_registry.flatten({'a': (1, 2)})
    >>> leaves, treedef
    ([1, 2], PyTreeDef({'a': (*, *)}))

A treedef is, as in jaxlib, its nodes in post-order (children before their parent), each
with its arity and the leaf and node counts of its subtree: unflatten is one pass with a
stack, and `children`, `compose` and equality are slices and comparisons of that list.
One known difference: jaxlib 0.10.2's `flatten_one_level_with_keys` gives every field of a
namedtuple the first field's key; here each field gets its own (as `flatten_with_path` does
in both).
"""
from __future__ import annotations

import builtins
import operator
import types
import warnings
from typing import Any

__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "PyTreeDef", "PyTreeRegistry",
           "SequenceKey", "all_leaves", "default_registry", "none_leaf_registry", "registries",
           "treedef_tuple"]

# Node kinds, numbered as jaxlib's PyTreeKind.
LEAF, NONE, TUPLE, NAMEDTUPLE, LIST, DICT, CUSTOM, DATACLASS = range(8)

# ---------------------------------------------------------------- key path entries

class _Key:
    """A key path entry: one value, compared only with entries of its own class."""
    __slots__ = ("_v",)

    # jaxlib's: an entry of another class is unequal, never NotImplemented
    def __eq__(self, other):
        return type(other) is type(self) and (self._v is other._v or bool(self._v == other._v))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __reduce__(self):
        return type(self), (self._v,)


class SequenceKey(_Key):
    """Index into a tuple or list: `str(SequenceKey(0)) == '[0]'`."""
    __slots__ = ()
    __match_args__ = ("idx",)
    def __init__(self, idx: int): self._v = operator.index(idx)
    idx = property(lambda self: self._v)
    def __str__(self): return f"[{self._v}]"
    def __repr__(self): return f"SequenceKey(idx={self._v})"
    def __hash__(self): return hash(self._v + 1)   # jaxlib's salt: idx + 1


class DictKey(_Key):
    """Key of a dict: `str(DictKey('a')) == "['a']"`."""
    __slots__ = ()
    __match_args__ = ("key",)
    def __init__(self, key: Any): self._v = key
    key = property(lambda self: self._v)
    def __str__(self): return f"[{self._v!r}]"
    def __repr__(self): return f"DictKey(key={self._v!r})"
    def __hash__(self): return hash(self._v)


class GetAttrKey(_Key):
    """Attribute (namedtuple field, dataclass field): `str(GetAttrKey('w')) == '.w'`."""
    __slots__ = ()
    __match_args__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"GetAttrKey(name) takes a str, got {type(name).__name__}")
        self._v = name

    name = property(lambda self: self._v)
    def __str__(self): return f".{self._v}"
    def __repr__(self): return f"GetAttrKey(name='{self._v}')"
    def __hash__(self): return hash(self._v)


class FlattenedIndexKey(_Key):
    """Position among a custom node's children, for nodes registered without keys."""
    __slots__ = ()
    __match_args__ = ("key",)
    def __init__(self, key: int): self._v = operator.index(key)
    key = property(lambda self: self._v)
    def __str__(self): return f"[<flat index {self._v}>]"
    def __repr__(self): return f"FlattenedIndexKey(key={self._v})"
    def __hash__(self): return hash(self._v + 42)   # jaxlib's salt

# ---------------------------------------------------------------- nodes and registrations

class _Registration:
    """How one type flattens: its kind, and the functions or fields of a custom node."""
    __slots__ = ("kind", "type", "to_iterable", "from_iterable", "to_iterable_with_keys",
                 "data_fields", "meta_fields")

    def __init__(self, kind, type_, to_iterable=None, from_iterable=None,
                 to_iterable_with_keys=None, data_fields=(), meta_fields=()):
        self.kind, self.type = kind, type_
        self.to_iterable, self.from_iterable = to_iterable, from_iterable
        self.to_iterable_with_keys = to_iterable_with_keys
        self.data_fields, self.meta_fields = tuple(data_fields), tuple(meta_fields)

    def children(self, x):
        """`(children, aux_data)` of a custom node, checked as jaxlib checks them."""
        out = self.to_iterable(x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError("The to_iterable function for a custom PyTree node should return "
                             f"a (children, aux_data) tuple, got {out!r}")
        try:
            iter(out[0])
        except TypeError:
            raise ValueError("The to_iterable function for a custom PyTree node should return a "
                             "(children, aux_data) tuple where 'children' is iterable, got "
                             f"{out!r}") from None
        return out

    def keyed_children(self, x):
        """`([(key, child), ...], aux_data)`; without a keyed flatten, keys are flat indices."""
        if self.to_iterable_with_keys is None:
            children, aux = self.children(x)
            return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux
        out = self.to_iterable_with_keys(x)
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError("The to_iterable_with_keys function for a custom PyTree node should "
                             f"return a (key_leaf_pairs, aux_data) tuple, got {out!r}")
        try:
            pairs = iter(out[0])
        except TypeError:
            raise ValueError("The to_iterable_with_keys function for a custom PyTree node should "
                             "return a (key_leaf_pairs, aux_data) tuple where 'key_leaf_pairs' is "
                             f"iterable, got {out!r}") from None
        result = []
        for pair in pairs:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError("The to_iterable_with_keys function for a custom PyTree node "
                                 "should return a (key_leaf_pairs, aux_data) tuple where "
                                 f"'child{pair!r}")
            result.append(pair)
        return result, out[1]

    def meta(self, x):
        return tuple(getattr(x, n) for n in self.meta_fields)


class _Node:
    """One node of a treedef: kind, arity, data (dict keys as a tuple, a namedtuple's type,
    a custom node's aux data), registration (custom and dataclass nodes), subtree counts."""
    __slots__ = ("kind", "arity", "data", "custom", "num_leaves", "num_nodes")

    def __init__(self, kind, arity, data, custom, num_leaves, num_nodes):
        self.kind, self.arity, self.data, self.custom = kind, arity, data, custom
        self.num_leaves, self.num_nodes = num_leaves, num_nodes


_LEAF_NODE = _Node(LEAF, 0, None, None, 1, 1)   # nodes are never mutated, so leaves share one

# Iterators that are leaves although they were surely meant as containers (jaxlib warns).
_WARN_ITERATORS = (types.GeneratorType, zip, map, filter, enumerate, reversed, type(iter([])),
                   type(iter(set())), type(iter(())), type(iter({})), type(iter({}.values())),
                   type(iter({}.items())), type({}.values()))


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except Exception as e:
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.") from e


def _differ(a, b) -> bool:
    """`a != b` as C's PyObject_RichCompareBool: identical objects never differ."""
    return a is not b and bool(a != b)


class PyTreeRegistry:
    """Which types are containers, and how each flattens (jaxlib's `PyTreeRegistry`).

    >>> r = PyTreeRegistry(enable_none=False)   # None is a leaf here
    >>> r.flatten([None, 1])[0]
    [None, 1]
    """

    def __init__(self, enable_none=True, enable_tuple=True, enable_namedtuple=True,
                 enable_list=True, enable_dict=True):
        self._registrations: dict[type, _Registration] = {}
        for on, typ, kind in ((enable_none, type(None), NONE), (enable_tuple, tuple, TUPLE),
                              (enable_list, list, LIST), (enable_dict, dict, DICT)):
            if on:
                self._registrations[typ] = _Registration(kind, typ)
        # jaxlib 0.10.2 stores enable_namedtuple but never reads it: namedtuples are always nodes

    def __reduce__(self):   # pickled by reference, as `module.name` (set where it is created)
        return self.__name__

    # -------------------------------------------------------- registration

    def register_node(self, type, to_iterable, from_iterable, to_iterable_with_keys=None):
        """A custom node: `to_iterable(x) -> (children, aux)`,
        `from_iterable(aux, children) -> x`."""
        if type in self._registrations:
            raise ValueError(f"Duplicate custom PyTreeDef type registration for {type!r}.")
        self._registrations[type] = _Registration(CUSTOM, type, to_iterable, from_iterable,
                                                  to_iterable_with_keys)

    def register_dataclass_node(self, type, data_fields, meta_fields):
        """A node whose children are the attributes `data_fields`; `meta_fields` are its aux
        data."""
        if type in self._registrations:
            raise ValueError(f"Duplicate custom dataclass PyTreeDef type registration for "
                             f"{type!r}.")
        self._registrations[type] = _Registration(DATACLASS, type, data_fields=data_fields,
                                                  meta_fields=meta_fields)

    def is_node(self, type) -> bool:
        """Whether instances of `type` are containers: `is_node(list)`, not `is_node(int)`."""
        return type in self._registrations or (
            isinstance(type, builtins.type) and issubclass(type, tuple) and
            hasattr(type, "_fields"))

    def _kind(self, x):
        """`(kind, registration)` of `x`: registered by exact type, else a namedtuple, else a
        leaf."""
        reg = self._registrations.get(type(x))
        if reg is not None:
            return reg.kind, reg
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return NAMEDTUPLE, None
        return LEAF, None

    # -------------------------------------------------------- flattening

    def flatten(self, tree, leaf_predicate=None):
        """`(leaves, treedef)`: leaves left to right, dict entries by sorted key."""
        leaves, traversal = [], []
        self._flatten_guarded(tree, leaves, traversal, leaf_predicate, None)
        return leaves, PyTreeDef(self, traversal)

    def flatten_with_path(self, tree, leaf_predicate=None):
        """`([(key_path, leaf), ...], treedef)`; `leaf_predicate(key_path, x)` if given."""
        leaves, traversal = [], []
        self._flatten_guarded(tree, leaves, traversal, leaf_predicate, [])
        return leaves, PyTreeDef(self, traversal)

    def _flatten_guarded(self, tree, leaves, traversal, is_leaf, path):
        try:
            self._flatten(tree, leaves, traversal, is_leaf, path)
        except RecursionError as e:
            if "PyTree may have cyclical" in str(e):
                raise
            raise RecursionError("maximum recursion depth exceeded in flatten; PyTree may have "
                                 "cyclical node references.") from e

    def _flatten(self, x, leaves, traversal, is_leaf, path):
        """Append `x`'s leaves (with their paths if `path` is a list) and its post-order nodes."""
        if is_leaf is not None:
            known = is_leaf(x) if path is None else is_leaf(tuple(path), x)
            if known is not None and known is not True and known is not False:
                raise ValueError(f"is_leaf predicate returned a non-boolean value {known!r}; "
                                 "expected a boolean")
            if known:
                leaves.append(x if path is None else (tuple(path), x))
                traversal.append(_LEAF_NODE)
                return
        reg = self._registrations.get(type(x))   # self._kind(x), inlined: this runs per node
        if reg is not None:
            kind = reg.kind
        elif isinstance(x, tuple) and hasattr(x, "_fields"):
            kind = NAMEDTUPLE
        else:
            if isinstance(x, _WARN_ITERATORS):
                warnings.warn(f"Python iterable type '{type(x).__name__}' is treated as a leaf in "
                              "PyTree. Use is_leaf to suppress this warning if you want this "
                              "behavior. In a future version of JAX, this will become an error.",
                              DeprecationWarning, stacklevel=3)
            leaves.append(x if path is None else (tuple(path), x))
            traversal.append(_LEAF_NODE)
            return
        start_leaves, start_nodes = len(leaves), len(traversal)
        data = None
        if kind == NONE:
            arity = 0
        elif kind in (TUPLE, LIST) and path is None:
            arity = len(x)
            for child in x:
                self._flatten(child, leaves, traversal, is_leaf, None)
        elif kind == DICT:
            data = _sorted_keys(x)
            arity = len(data)
            if path is None:
                for k in data:
                    self._flatten(x[k], leaves, traversal, is_leaf, None)
            else:
                self._flatten_keyed(((DictKey(k), x[k]) for k in data), leaves, traversal, is_leaf,
                                    path)
        elif kind == NAMEDTUPLE:
            data, arity = type(x), len(x)
            if path is None:
                for child in x:
                    self._flatten(child, leaves, traversal, is_leaf, None)
            else:
                fields = getattr(x, "_fields")
                if not isinstance(fields, tuple) or len(fields) != len(x):
                    raise ValueError("A namedtuple's _fields attribute should have the same size "
                                     "as the tuple.")
                self._flatten_keyed(((GetAttrKey(str(f)), c) for f, c in zip(fields, x)),
                                    leaves, traversal, is_leaf, path)
        elif kind == CUSTOM:
            if path is None:
                children, data = reg.children(x)
                arity = 0
                for child in children:
                    arity += 1
                    self._flatten(child, leaves, traversal, is_leaf, None)
            else:
                pairs, data = reg.keyed_children(x)
                arity = self._flatten_keyed(pairs, leaves, traversal, is_leaf, path)
        elif kind == DATACLASS:
            data, arity = reg.meta(x), len(reg.data_fields)
            if path is None:
                for name in reg.data_fields:
                    self._flatten(getattr(x, name), leaves, traversal, is_leaf, None)
            else:
                self._flatten_keyed(((GetAttrKey(n), getattr(x, n)) for n in reg.data_fields),
                                    leaves, traversal, is_leaf, path)
        else:  # a tuple or list, with paths
            arity = self._flatten_keyed(((SequenceKey(i), c) for i, c in enumerate(x)),
                                        leaves, traversal, is_leaf, path)
        traversal.append(_Node(kind, arity, data, reg if kind >= CUSTOM else None,
                               len(leaves) - start_leaves, len(traversal) - start_nodes + 1))

    def _flatten_keyed(self, pairs, leaves, traversal, is_leaf, path) -> int:
        n = 0
        for key, child in pairs:
            path.append(key)
            self._flatten(child, leaves, traversal, is_leaf, path)
            path.pop()
            n += 1
        return n

    def flatten_one_level(self, tree):
        """`(children, aux_data)` of the root, or None for a leaf: `((2, 1), ('a', 'b'))` for
        `{'b': 1, 'a': 2}`."""
        return self._one_level(tree, False)

    def flatten_one_level_with_keys(self, tree):
        """Like `flatten_one_level`, with children as `(key, child)` pairs."""
        return self._one_level(tree, True)

    def _one_level(self, x, with_keys):
        kind, reg = self._kind(x)
        if kind == NONE:
            return (), None
        if kind in (TUPLE, LIST):
            return (tuple((SequenceKey(i), c) for i, c in enumerate(x)) if with_keys else x), None
        if kind == DICT:
            keys = _sorted_keys(x)
            return tuple((DictKey(k), x[k]) if with_keys else x[k] for k in keys), keys
        if kind == NAMEDTUPLE:
            if not with_keys:
                return list(x), type(x)
            fields = getattr(x, "_fields")
            if not isinstance(fields, tuple) or len(fields) != len(x):
                raise ValueError("A namedtuple's _fields attribute should have the same size as "
                                 "the tuple.")
            return [(GetAttrKey(str(f)), c) for f, c in zip(fields, x)], type(x)
        if kind == CUSTOM:
            return reg.keyed_children(x) if with_keys else reg.children(x)
        if kind == DATACLASS:
            data = [(GetAttrKey(n), getattr(x, n)) if with_keys else getattr(x, n)
                    for n in reg.data_fields]
            return data, reg.meta(x)
        return None


def all_leaves(registry: PyTreeRegistry, iterable) -> bool:
    """Whether no element of `iterable` is a container: `all_leaves(default_registry, [1, 2])`."""
    return all(registry._kind(x)[0] == LEAF for x in iterable)


def treedef_tuple(registry: PyTreeRegistry, treedefs) -> PyTreeDef:
    """The structure of a tuple of trees with the given structures."""
    traversal, num_leaves = [], 0
    treedefs = list(treedefs)
    for td in treedefs:
        if td._registry is not registry:
            raise ValueError("PyTree registries of PyTreeDefs passed to Tuple() must match.")
        traversal += td._traversal
        num_leaves += td.num_leaves
    traversal.append(_Node(TUPLE, len(treedefs), None, None, num_leaves, len(traversal) + 1))
    return PyTreeDef(registry, traversal)

# ---------------------------------------------------------------- treedefs

class PyTreeDef:
    """The structure of a pytree: what `flatten` returns beside the leaves.

    >>> default_registry.flatten((1, [2, None]))[1]
    PyTreeDef((*, [*, None]))
    """
    __slots__ = ("_registry", "_traversal", "_hash")

    def __init__(self, registry: PyTreeRegistry, traversal: list):
        self._registry, self._traversal, self._hash = registry, traversal, None

    @property
    def num_leaves(self) -> int:
        return self._traversal[-1].num_leaves if self._traversal else 0

    @property
    def num_nodes(self) -> int:
        return len(self._traversal)

    def unflatten(self, leaves):
        """The tree of this structure with `leaves` (any iterable) in order."""
        it, stack, got = iter(leaves), [], 0
        for node in self._traversal:
            if node.kind == LEAF:
                try:
                    stack.append(next(it))
                except StopIteration:
                    raise ValueError(f"Too few leaves for PyTreeDef; expected {self.num_leaves}, "
                                     f"got {got}") from None
                got += 1
            elif node.arity:
                children = stack[-node.arity:]
                del stack[-node.arity:]
                stack.append(_make_node(node, children))
            else:
                stack.append(_make_node(node, []))
        if next(it, _END) is not _END:
            raise ValueError(f"Too many leaves for PyTreeDef; expected {self.num_leaves}.")
        return stack[0]

    def flatten_up_to(self, xs) -> list:
        """The subtrees of `xs` where this structure has leaves (`xs` must extend it).

        Walks the nodes from the root, the rightmost child first, as jaxlib does, so the
        first mismatch reported is the same one."""
        leaves = [None] * self.num_leaves
        agenda, pos, leaf = [xs], len(self._traversal), self.num_leaves
        while agenda:
            if pos == 0:
                raise ValueError(f"Tree structures did not match: {xs!r} vs {self!r}")
            pos -= 1
            node, x = self._traversal[pos], agenda.pop()
            kind = node.kind
            if kind == LEAF:
                leaf -= 1
                leaves[leaf] = x
            elif kind == NONE:
                if x is not None:
                    raise ValueError(
                        f"Expected None, got {x!r}.\n\nIn previous releases of JAX, flatten-up-to "
                        "used to consider None to be a tree-prefix of non-None values. To obtain "
                        "the previous behavior, you can usually write:\n  "
                        "jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
                        "is_leaf=lambda x: x is None)")
            elif kind == TUPLE or kind == LIST:
                name = "tuple" if kind == TUPLE else "list"
                if type(x) is not (tuple if kind == TUPLE else list):
                    raise ValueError(f"Expected {name}, got {x!r}.")
                if len(x) != node.arity:
                    raise ValueError(f"{name.capitalize()} arity mismatch: {len(x)} != "
                                     f"{node.arity}; {name}: {x!r}.")
                agenda.extend(x)
            elif kind == DICT:
                if type(x) is not dict:
                    raise ValueError(f"Expected dict, got {x!r}.")
                keys = _sorted_keys(x)
                if len(keys) != len(node.data) or any(map(_differ, keys, node.data)):
                    raise ValueError(f"Dict key mismatch; expected keys: {list(node.data)!r}; "
                                     f"present keys: {list(keys)!r}.")
                agenda.extend(x[k] for k in keys)
            elif kind == NAMEDTUPLE:
                if not isinstance(x, tuple) or not hasattr(x, "_fields"):
                    raise ValueError(f"Expected named tuple, got {x!r}.")
                if len(x) != node.arity:
                    raise ValueError(f"Named tuple arity mismatch: {len(x)} != {node.arity}; "
                                     f"tuple: {x!r}.")
                if _differ(type(x), node.data):
                    raise ValueError(f"Named tuple type mismatch: expected type: {node.data!r}, "
                                     f"tuple: {x!r}.")
                agenda.extend(x)
            elif kind == CUSTOM:
                reg = node.custom
                if self._registry._registrations.get(type(x)) is not reg:
                    raise ValueError(f"Custom node type mismatch: expected type: {reg.type!r}, "
                                     f"value: {x!r}.")
                children, aux = reg.children(x)
                if _differ(node.data, aux):
                    raise ValueError(f"Mismatch custom node data: {node.data!r} != {aux!r}; "
                                     f"value: {x!r}.")
                before = len(agenda)
                agenda.extend(children)
                if len(agenda) - before != node.arity:
                    raise ValueError(f"Custom type arity mismatch: {len(agenda) - before} != "
                                     f"{node.arity}; value: {x!r}.")
            else:  # DATACLASS
                reg = node.custom
                if self._registry._registrations.get(type(x)) is not reg:
                    raise ValueError(f"Custom dataclass node type mismatch: expected type: "
                                     f"{reg.type!r}, value: {x!r}.")
                aux = reg.meta(x)
                if _differ(node.data, aux):
                    raise ValueError(f"Mismatch custom dataclass node data: {node.data!r} != "
                                     f"{aux!r}; value: {x!r}.")
                if len(reg.data_fields) != node.arity:
                    raise ValueError(f"Custom type arity mismatch: {len(reg.data_fields)} != "
                                     f"{node.arity}; value: {x!r}.")
                agenda.extend(getattr(x, n) for n in reg.data_fields)
        if pos != 0 or leaf != 0:
            raise ValueError(f"Tree structures did not match: {xs!r} vs {self!r}")
        return leaves

    def children(self) -> list[PyTreeDef]:
        """Structures of the root's children: `[PyTreeDef(*), PyTreeDef((*,))]` for `[1, (2,)]`."""
        out, end = [], len(self._traversal) - 1
        for _ in range(self._traversal[-1].arity if self._traversal else 0):
            start = end - self._traversal[end - 1].num_nodes
            out.append(PyTreeDef(self._registry, self._traversal[start:end]))
            end = start
        return out[::-1]

    def node_data(self):
        """`(type, data)` of the root, or None for a leaf: `(dict, ['a'])` for `{'a': 1}`."""
        node = self._traversal[-1]
        if node.kind == LEAF:
            return None
        if node.kind == DICT:
            return dict, list(node.data)
        if node.kind == NAMEDTUPLE:
            return node.data, None
        if node.kind >= CUSTOM:
            return node.custom.type, node.data
        return {NONE: type(None), TUPLE: tuple, LIST: list}[node.kind], None

    def walk(self, f_node, f_leaf, leaves):
        """Fold the structure over `leaves`: `f_leaf(leaf)` at each leaf (none if None), then
        `f_node(children_tuple, node_data)` at each node, children first."""
        it, stack = iter(leaves), []
        for node in self._traversal:
            if node.kind == LEAF:
                leaf = next(it, _END)
                if leaf is _END:
                    raise ValueError("Too few leaves for PyTreeDef")
                stack.append(leaf if f_leaf is None else f_leaf(leaf))
            else:
                children = tuple(stack[len(stack) - node.arity:])
                del stack[len(stack) - node.arity:]
                stack.append(f_node(children, list(node.data) if node.kind == DICT else node.data))
        if next(it, _END) is not _END:
            raise ValueError("Too many leaves for PyTreeDef")
        return stack[0]

    def from_iterable_tree(self, xs):
        """The tree of this structure from nested iterables, one per node, of its children:
        `[[1, [2]], []]` gives `{'a': (1, [2]), 'b': None}`
        for `PyTreeDef({'a': (*, [*]), 'b': None})`."""
        pos = len(self._traversal)

        def build(x):   # the nodes from the root, rightmost child first, as unflatten's reverse
            nonlocal pos
            if pos == 0:
                raise ValueError("Tree structures did not match.")
            pos -= 1
            node = self._traversal[pos]
            if node.kind == LEAF:
                return x
            ys = list(x)
            if len(ys) != node.arity:
                raise ValueError("Arity mismatch between trees")
            for j in reversed(range(node.arity)):
                ys[j] = build(ys[j])
            return _make_node(node, ys)

        out = build(xs)
        if pos != 0:
            raise ValueError("Tree structures did not match.")
        return out

    @staticmethod
    def from_node_data_and_children(registry: PyTreeRegistry, node_data, children) -> PyTreeDef:
        """The inverse of `node_data()` and `children()`: a root of that type and data over them."""
        traversal, num_leaves, arity = [], 0, 0
        for child in children:
            traversal += child._traversal
            num_leaves, arity = num_leaves + child.num_leaves, arity + 1
        kind, data, custom = LEAF, None, None
        if node_data is None:
            num_leaves += 1
        elif issubclass(node_data[0], tuple) and hasattr(node_data[0], "_fields"):
            kind, data = NAMEDTUPLE, node_data[0]
        else:
            reg = registry._registrations.get(node_data[0])
            if reg is None:
                raise RuntimeError(f"Could not find type: {node_data[0]!r}.")
            kind = reg.kind
            if kind >= CUSTOM:
                data, custom = node_data[1], reg
            elif kind == DICT:
                data = tuple(node_data[1])
        traversal.append(_Node(kind, arity, data, custom, num_leaves, len(traversal) + 1))
        return PyTreeDef(registry, traversal)

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """This structure with each leaf replaced by `inner`."""
        if inner._registry is not self._registry:
            raise ValueError("PyTree registries of PyTreeDefs passed to Compose() must match.")
        traversal, starts = [], []   # starts: (leaves, nodes) before each pending subtree
        for node in self._traversal:
            if node.kind == LEAF:
                traversal += inner._traversal
            else:
                traversal.append(node)
        # recount each subtree, as jaxlib's SetNumLeavesAndNumNodes
        leaves = 0
        for i, node in enumerate(traversal):
            start = (leaves, i)
            if node.kind == LEAF:
                leaves += 1
            if node.arity == 0:
                starts.append(start)
            else:
                del starts[len(starts) - node.arity + 1:]
            traversal[i] = _Node(node.kind, node.arity, node.data, node.custom,
                                 leaves - starts[-1][0], i + 1 - starts[-1][1])
        return PyTreeDef(self._registry, traversal)

    def __eq__(self, other):   # False, never NotImplemented, for a non-treedef (so != is False too)
        if not isinstance(other, PyTreeDef):
            return False
        if len(self._traversal) != len(other._traversal):
            return False
        for a, b in zip(self._traversal, other._traversal):
            if a.kind != b.kind or a.arity != b.arity:
                return False
            # As jaxlib 0.10.2: a custom node's type and unflatten function must agree, but two
            # dataclass nodes are compared by their meta fields only.
            if a.kind == CUSTOM and (a.custom.type is not b.custom.type
                                     or a.custom.from_iterable is not b.custom.from_iterable):
                return False
            if a.kind == DICT:
                if any(map(_differ, a.data, b.data)):
                    return False
            elif a.kind in (NAMEDTUPLE, CUSTOM, DATACLASS):
                try:
                    if _differ(a.data, b.data):
                        return False
                except Exception as e:
                    raise ValueError(
                        "Exception raised while checking equality of metadata fields of pytree. "
                        "Make sure that metadata fields are hashable and have simple equality "
                        "semantics. (Note: arrays cannot be passed as metadata fields!)") from e
        return True

    def __ne__(self, other):
        return isinstance(other, PyTreeDef) and not self.__eq__(other)

    def __hash__(self):
        # Kinds, arities, custom types and dict keys: what equality compares, less aux data,
        # which need not be hashable. Cached: treedefs are jit cache keys. A dataclass node's
        # type is hashed too, though equality leaves it out (jaxlib 0.10.2 does both): a class
        # made anew (its cell run again) misses jit's cache, as JAX's, and its first trace
        # returns the new class, not the old one's (tests/data/recompile_cells_cases.py)
        if self._hash is None:
            self._hash = hash(tuple(
                (n.kind, n.arity, n.data if n.kind == DICT else
                 n.custom.type if n.kind in (CUSTOM, DATACLASS) else None)
                for n in self._traversal))
        return self._hash

    def __repr__(self):
        stack = []
        for node in self._traversal:
            kids = stack[len(stack) - node.arity:]
            del stack[len(stack) - node.arity:]
            kind = node.kind
            if kind == LEAF:
                text = "*"
            elif kind == NONE:
                text = "None"
            elif kind == TUPLE:
                text = f"({', '.join(kids)}{',' if node.arity == 1 else ''})"
            elif kind == LIST:
                text = f"[{', '.join(kids)}]"
            elif kind == DICT:
                text = "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(node.data, kids)) + "}"
            elif kind == NAMEDTUPLE:
                text = f"CustomNode(namedtuple[{node.data.__name__}], [{', '.join(kids)}])"
            else:
                text = (f"CustomNode({node.custom.type.__name__}[{str(node.data)}], "
                        f"[{', '.join(kids)}])")
            stack.append(text)
        return f"PyTreeDef({stack[0]})"

    def __reduce__(self):
        nodes = [(n.kind, n.arity, n.data, n.custom.type if n.custom else None, n.num_leaves,
                  n.num_nodes) for n in self._traversal]
        return _unpickle_treedef, (self._registry, nodes)


_END = object()


def _unpickle_treedef(registry, nodes):
    traversal = []
    for kind, arity, data, typ, num_leaves, num_nodes in nodes:
        custom = None
        if typ is not None:
            custom = registry._registrations.get(typ)
            if custom is None:
                raise ValueError(f"Unknown custom type in pickled PyTreeDef: {typ!r}")
        traversal.append(_LEAF_NODE if kind == LEAF else
                         _Node(kind, arity, data, custom, num_leaves, num_nodes))
    return PyTreeDef(registry, traversal)


def _make_node(node: _Node, children: list):
    kind = node.kind
    if kind == NONE:
        return None
    if kind == TUPLE:
        return tuple(children)
    if kind == LIST:
        return children
    if kind == DICT:
        return dict(zip(node.data, children))
    if kind == NAMEDTUPLE:
        return node.data(*children)
    if kind == CUSTOM:
        return node.custom.from_iterable(node.data, tuple(children))
    reg = node.custom   # DATACLASS: meta fields first, as jaxlib builds the keyword arguments
    return reg.type(**dict(zip(reg.meta_fields, node.data)), **dict(zip(reg.data_fields, children)))


default_registry = PyTreeRegistry()
# None is a leaf here, not an empty node: for trees of optional values such as vmap's in_axes.
none_leaf_registry = PyTreeRegistry(enable_none=False)
registries = (default_registry, none_leaf_registry)  # custom nodes go into every one

# A treedef pickles its registry by reference, as `module.name`.
default_registry.__module__ = none_leaf_registry.__module__ = __name__
default_registry.__name__, none_leaf_registry.__name__ = "default_registry", "none_leaf_registry"
