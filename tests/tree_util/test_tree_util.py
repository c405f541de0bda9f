"""jxkernel.tree_util against JAX 0.10.2: expected reprs, key strings and error messages
below were printed by jax.tree_util (tests named test_jxk_* check things JAX lacks)."""
import collections
import dataclasses
import functools
import operator
import os
import pickle

import pytest

import jxkernel.tree_util as tu
from jxkernel.tree_util import (DictKey, FlattenedIndexKey, GetAttrKey, Partial, SequenceKey, keystr,
                                tree_flatten, tree_flatten_with_path, tree_leaves, tree_leaves_with_path,
                                tree_map, tree_map_with_path, tree_structure, tree_unflatten)

Point = collections.namedtuple("Point", "x y")


class Node:  # register_pytree_node, aux data 'aux'
    def __init__(self, a, b): self.a, self.b = a, b
    def __eq__(self, o): return type(o) is Node and (self.a, self.b) == (o.a, o.b)


tu.register_pytree_node(Node, lambda n: ((n.a, n.b), "aux"), lambda aux, ch: Node(*ch))


@tu.register_pytree_node_class
class Box:  # the class-method style; `label` is static
    def __init__(self, value, label): self.value, self.label = value, label
    def __eq__(self, o): return type(o) is Box and (self.value, self.label) == (o.value, o.label)
    def tree_flatten(self): return (self.value,), self.label
    @classmethod
    def tree_unflatten(cls, label, children): return cls(children[0], label)


class Pair:  # register_pytree_with_keys: leaves get attribute keys
    def __init__(self, left, right): self.left, self.right = left, right
    def __eq__(self, o): return type(o) is Pair and (self.left, self.right) == (o.left, o.right)


tu.register_pytree_with_keys(Pair, lambda p: (((GetAttrKey("left"), p.left), (GetAttrKey("right"), p.right)), None),
                             lambda _, ch: Pair(*ch))


@tu.register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    n: int = dataclasses.field(default=0, metadata=dict(static=True))
    b: object = None


class Meta(str):  # for metadata-mismatch errors
    pass


tu.register_pytree_node(Meta, lambda m: ((), str(m)), lambda aux, _: Meta(aux))


@tu.register_static
class Static:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return type(o) is Static and o.v == self.v
    def __hash__(self): return hash(self.v)


TREES = [
    1, None, (), [], {}, (1, 2), [1, [2, [3]]], {"b": 1, "a": (2, None)}, ((1, 2), {"a": 3, "b": [4, 5]}),
    Point(1, (2, 3)), collections.OrderedDict(b=1, a=[2]), collections.defaultdict(list, b=1, a=2),
    Node(1, [2, 3]), Box([1, 2], "lbl"), Pair(1, {"k": 2}), Params([1.0, 2.0], 3, (4,)), Static(5),
    [None, (None,), {"x": None}],
]


@pytest.mark.parametrize("tree", TREES, ids=lambda t: type(t).__name__)
def test_round_trip(tree):
    leaves, treedef = tree_flatten(tree)
    back = tree_unflatten(treedef, leaves)
    assert type(back) is type(tree) and back == tree
    assert treedef.num_leaves == len(leaves) and tree_structure(back) == treedef
    assert tree_map(lambda x: x, tree) == tree


@pytest.mark.parametrize("tree, expected", [
    (((1, 2), {"a": 3, "b": [4, 5]}), "PyTreeDef(((*, *), {'a': *, 'b': [*, *]}))"),
    ((1, {"b": [2, 3], "a": None}, Point(4, 5)), "PyTreeDef((*, {'a': None, 'b': [*, *]}, CustomNode(namedtuple[Point], [*, *])))"),
    (None, "PyTreeDef(None)"), (3, "PyTreeDef(*)"), ([], "PyTreeDef([])"), ((), "PyTreeDef(())"), ({}, "PyTreeDef({})"),
    (collections.OrderedDict(b=1, a=2), "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"),
    (collections.defaultdict(list, b=1, a=2), "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))"),
    (Node(1, 2), "PyTreeDef(CustomNode(Node[aux], [*, *]))"),
    (Params(1, 3, [2]), "PyTreeDef(CustomNode(Params[(3,)], [*, [*]]))"),
    (Partial(max, 1, key=2), "PyTreeDef(CustomNode(Partial[<built-in function max>], [(*,), {'key': *}]))"),
])
def test_treedef_repr(tree, expected):
    assert repr(tree_structure(tree)) == expected


def test_leaf_order_and_none():
    assert tree_leaves({"b": 1, "a": 2, "c": None}) == [2, 1]   # dict keys sorted, None has no leaves
    assert tree_leaves(collections.OrderedDict(b=1, a=2)) == [1, 2]   # insertion order
    assert tree_leaves([1, None]) == [1]
    assert tree_flatten([1, None, 2], is_leaf=lambda x: x is None)[0] == [1, None, 2]
    assert tu.treedef_is_leaf(tree_structure(None)) and tree_structure(None).num_leaves == 0
    assert tree_map(lambda x, y: (x, y), [1, None], [[3], None]) == [(1, [3]), None]


def test_defaultdict_keeps_factory():
    d = tree_map(lambda x: x * 10, collections.defaultdict(list, b=1, a=2))
    assert type(d) is collections.defaultdict and d.default_factory is list and d == {"a": 20, "b": 10}
    assert list(tree_map(lambda x: x, collections.OrderedDict(b=1, a=2))) == ["b", "a"]


def test_dict_keys_must_be_sortable():
    with pytest.raises(ValueError, match="Comparator raised exception while sorting pytree dictionary keys"):
        tree_flatten({1: "a", "b": 2})


def test_custom_nodes_all_registration_styles():
    assert tree_flatten(Node(1, (2, 3)))[0] == [1, 2, 3]
    assert tree_map(lambda x: x + 1, Box(1, "lbl")) == Box(2, "lbl")
    assert tree_structure(Box(1, "a")) != tree_structure(Box(1, "b"))   # aux data is part of the structure
    assert tree_map(lambda x: -x, Pair(1, 2)) == Pair(-1, -2)
    assert tu.is_tree_node(Node) and tu.is_tree_node(Point) and tu.is_tree_node(list) and not tu.is_tree_node(int)
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for <class '.*Node'>"):
        tu.register_pytree_node(Node, lambda n: ((), None), lambda aux, ch: None)


def test_register_pytree_with_keys_class():
    @tu.register_pytree_with_keys_class
    class KC:
        def __init__(self, x): self.x = x
        def tree_flatten_with_keys(self): return ((GetAttrKey("x"), self.x),), None
        @classmethod
        def tree_unflatten(cls, _, ch): return cls(*ch)
    (path, leaf), = tree_leaves_with_path(KC(7))
    assert keystr(path) == ".x" and leaf == 7 and tree_map(lambda v: v + 1, KC(7)).x == 8


def test_dataclass():
    p = Params(w=[1.0, 2.0], n=3, b=None)
    leaves, treedef = tree_flatten(p)
    assert leaves == [1.0, 2.0]
    q = tree_unflatten(treedef, [5.0, 6.0])
    assert q == Params([5.0, 6.0], 3, None)
    assert tree_structure(Params(1, n=4)) != tree_structure(Params(1, n=3))
    assert [keystr(k) for k, _ in tree_leaves_with_path(Params(1, 3, [2]))] == [".w", ".b[0]"]

    @dataclasses.dataclass
    class D:
        x: object
        y: object
        cache: object = None
    tu.register_dataclass(D, data_fields=["x"], meta_fields=["y"], drop_fields=["cache"])
    assert tree_flatten(D(1, "s"))[0] == [1] and tree_map(lambda v: v + 1, D(1, "s")) == D(2, "s")

    @dataclasses.dataclass
    class E:
        x: object
        y: object
    with pytest.raises(ValueError, match="Missing fields: {'y'}"):
        tu.register_dataclass(E, data_fields=["x"], meta_fields=[])
    with pytest.raises(TypeError, match="must both be specified"):
        tu.register_dataclass(E, data_fields=["x"])

    class NotDC:
        def __init__(self, a, m): self.a, self.m = a, m
    with pytest.raises(TypeError, match="required when nodetype is not a dataclass"):
        tu.register_dataclass(NotDC)
    tu.register_dataclass(NotDC, data_fields=["a"], meta_fields=["m"])
    r = tree_map(lambda v: v * 2, NotDC(3, "m"))
    assert (r.a, r.m) == (6, "m")


def test_key_paths_and_keystr():
    tree = (1, {"b": [2, 3], "a": None}, Point(4, 5))
    got = [(keystr(p), keystr(p, simple=True, separator="/"), x) for p, x in tree_leaves_with_path(tree)]
    assert got == [("[0]", "0", 1), ("[1]['b'][0]", "1/b/0", 2), ("[1]['b'][1]", "1/b/1", 3),
                   ("[2].x", "2/x", 4), ("[2].y", "2/y", 5)]
    assert tree_leaves_with_path(tree)[1][0] == (SequenceKey(1), DictKey("b"), SequenceKey(0))
    assert repr(tree_leaves_with_path(tree)[3][0]) == "(SequenceKey(idx=2), GetAttrKey(name='x'))"
    keys = (FlattenedIndexKey(3), GetAttrKey("w"), DictKey(1), SequenceKey(2))
    assert keystr(keys) == "[<flat index 3>].w[1][2]"
    assert keystr(keys, simple=True, separator="/") == "3/w/1/2"
    assert [keystr(p) for p, _ in tree_leaves_with_path(Node(1, 2))] == ["[<flat index 0>]", "[<flat index 1>]"]
    assert [keystr(p) for p, _ in tree_leaves_with_path(collections.OrderedDict(b=1, a=2))] == ["['b']", "['a']"]
    assert [keystr(p) for p, _ in tree_leaves_with_path(collections.defaultdict(list, b=1, a=2))] == ["['a']", "['b']"]
    assert [keystr(p) for p, _ in tree_leaves_with_path(Pair(1, {"k": 2}))] == [".left", ".right['k']"]
    assert SequenceKey(0).idx == 0 and DictKey("a").key == "a" and GetAttrKey("n").name == "n"
    assert str(SequenceKey(0)) == "[0]" and str(DictKey("a")) == "['a']" and str(GetAttrKey("n")) == ".n"


def test_with_path_variants():
    pairs, treedef = tree_flatten_with_path([1, None, 2], is_leaf=lambda x: x is None)
    assert pairs == [((SequenceKey(0),), 1), ((SequenceKey(1),), None), ((SequenceKey(2),), 2)]
    assert treedef == tree_structure([0, 0, 0])
    pairs, _ = tree_flatten_with_path([1, [2, 3]], is_leaf=lambda p, x: len(p) == 1, is_leaf_takes_path=True)
    assert pairs == [((SequenceKey(0),), 1), ((SequenceKey(1),), [2, 3])]
    assert tree_map_with_path(lambda p, x: keystr(p), {"a": [1, 2], "b": 3}) == {"a": ["['a'][0]", "['a'][1]"], "b": "['b']"}
    assert tree_map_with_path(lambda p, x, y: (keystr(p), x + y), [1, 2], [10, 20]) == [("[0]", 11), ("[1]", 22)]


def test_tree_map_several_trees_prefix_and_is_leaf():
    assert tree_map(lambda x, y, z: x + y + z, [1, (2, 3)], [10, (20, 30)], [100, (200, 300)]) == [111, (222, 333)]
    # the first tree is a prefix: its leaves meet whole subtrees of the others
    assert tree_map(lambda x, y: (x, y), [1, 2], [[3], {"a": 4}]) == [(1, [3]), (2, {"a": 4})]
    assert tree_map(len, [[1, 2], [3]], is_leaf=lambda x: isinstance(x, list) and all(type(v) is int for v in x)) == [2, 1]
    assert tree_map(lambda x, y: (x, y), {"a": (1, 2)}, {"a": [3, 4]}, is_leaf=lambda x: isinstance(x, tuple)) == {"a": ((1, 2), [3, 4])}


MISMATCHES = [
    (((1, 2), (1, 2, 3)),
     "pytree structure error: different lengths of tuple at key path\n    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type tuple of length 2, "
     "but the full pytree has a subtree of the same type but of length 3."),
    (({"a": 1}, {"b": 1}),
     "pytree structure error: different pytree metadata at key path\n    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\n"
     "with metadata\n    ('a',)\nbut at the same key path the full pytree has a subtree of the same type but with metadata\n"
     "    ('b',)\nso the diff in the metadata at these pytree nodes is\n"
     "    - ('a',)\n    ?   ^\n\n    + ('b',)\n    ?   ^\n"),
    (((1, [2]), (1, (2,))),
     "pytree structure error: different types at key path\n    tree_map tree[1]\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'list'>\n"
     "but at the same key path the full pytree has a subtree of different type\n    <class 'tuple'>."),
    (([1, {"a": 2}], [1, {"a": 2, "b": 3}]),
     "pytree structure error: different numbers of pytree children at key path\n    tree_map tree[1]\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\n"
     "with 1 child keys\n    a\nbut at the same key path the full pytree has a subtree of the same type but with "
     "2 child keys\n    a b\nso the symmetric difference on key sets is\n    b"),
    (([1, None], [[3], 5]),
     "pytree structure error: different types at key path\n    tree_map tree[1]\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'NoneType'>\n"
     "but at the same key path the full pytree has a subtree of different type\n    <class 'int'>."),
    (([Meta("x")], [Meta("y")]),
     "pytree structure error: different pytree metadata at key path\n    tree_map tree[0]\n"
     f"At that key path, the prefix pytree tree_map tree has a subtree of type\n    {Meta}\n"
     "with metadata\n    x\nbut at the same key path the full pytree has a subtree of the same type but with metadata\n"
     "    y\nso the diff in the metadata at these pytree nodes is\n    - x\n    + y"),
]


@pytest.mark.parametrize("trees, message", MISMATCHES)
def test_structure_mismatch_errors(trees, message):
    with pytest.raises(ValueError) as info:
        tree_map(lambda *xs: xs, *trees)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        tree_map_with_path(lambda *xs: xs, *trees)
    assert str(info.value) == message.replace("tree_map tree", "tree_map_with_path tree")


def test_treedef_methods_equality_hash():
    td = tree_structure(((1, 2), {"a": 3, "b": [4, 5]}))
    assert td == tree_structure((("x", "y"), {"b": [0, 0], "a": 0}))   # leaf values don't matter
    assert hash(td) == hash(tree_structure(((0, 0), {"b": [0, 0], "a": 0})))
    assert td != tree_structure(((1, 2), {"a": 3, "b": (4, 5)}))
    assert tree_structure([1]) != tree_structure((1,)) and tree_structure(None) != tree_structure(())
    assert tree_structure({"a": 1, "b": 2}) == tree_structure({"b": 2, "a": 1})
    assert len({td, tree_structure(((0, 0), {"a": 0, "b": [0, 0]})), tree_structure([1])}) == 2
    assert (td.num_leaves, td.num_nodes) == (5, 9)
    assert tu.treedef_children(tree_structure([1, (2,)])) == [tree_structure(1), tree_structure((2,))]
    assert repr(tree_structure([(1, 2), 3, {"a": 4}]).children()) == "[PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]"
    assert td.unflatten(range(5)) == ((0, 1), {"a": 2, "b": [3, 4]})
    assert td.flatten_up_to(((1, [2]), {"a": None, "b": [(3,), 4]})) == [1, [2], None, (3,), 4]
    assert tu.treedef_tuple([tree_structure([1]), tree_structure({"a": 1})]) == tree_structure(([1], {"a": 1}))
    assert tu.treedef_is_leaf(tree_structure(1)) and not tu.treedef_is_leaf(tree_structure([1, 2]))
    assert tu.all_leaves([1, 2]) and not tu.all_leaves([1, (2,)])
    assert tu.all_leaves([(1,), 2], is_leaf=lambda x: isinstance(x, tuple))
    with pytest.raises(ValueError, match="Too few leaves for PyTreeDef; expected 2, got 1"):
        tree_structure([1, 2]).unflatten([1])
    with pytest.raises(ValueError, match=r"Dict key mismatch; expected keys: \['a', 'b'\]; present keys: \['b'\]"):
        tree_structure({"a": 1, "b": 2}).flatten_up_to({"b": 1})


def test_partial():
    p = Partial(operator.add, 1)
    leaves, treedef = tree_flatten(p)
    assert leaves == [1] and p(2) == 3
    q = tree_map(lambda x: x * 10, Partial(max, 1, key=2))
    assert isinstance(q, Partial) and q.func is max and q.args == (10,) and q.keywords == {"key": 20}
    assert tree_flatten(Partial(max, 1, key=2))[0] == [1, 2]
    assert tree_structure(Partial(operator.add, 1)) == tree_structure(Partial(operator.add, 5))
    assert tree_structure(Partial(operator.add, 1)) != tree_structure(Partial(operator.sub, 1))
    # a wrapped functools.partial keeps its own bound arguments static, out of the leaves
    inner = functools.partial(operator.add, 100)
    r = Partial(inner, 1)
    assert tree_leaves(r) == [1] and r() == 101 and tree_map(lambda x: x + 1, r)() == 102
    assert tree_leaves(Partial(operator.neg)) == [] and Partial(operator.neg)(3) == -3


def test_reduce_all_transpose_broadcast_static():
    assert tu.tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert tu.tree_reduce(operator.add, [], 10) == 10
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
        tu.tree_reduce(operator.add, [])
    assert tu.tree_reduce_associative(operator.add, [1, (2, 3), {"a": 4}]) == 10
    assert tu.tree_reduce_associative(operator.add, [], identity=0) == 0
    assert tu.tree_all([1, (True, 0)]) is False and tu.tree_all([1, (True, None)]) is True
    outer, inner = tree_structure([0, 0]), tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_broadcast([1, 2], [[3, 4], {"a": 5}]) == [[1, 1], {"a": 2}]
    assert tu.tree_leaves([Static(1), 2]) == [2]
    assert tree_structure(Static(1)) == tree_structure(Static(1)) != tree_structure(Static(2))
    assert tu.flatten_one_level({"b": 1, "a": 2}) == ((2, 1), ("a", "b"))
    assert tu.flatten_one_level_with_keys([1, 2]) == (((SequenceKey(0), 1), (SequenceKey(1), 2)), None)
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
        tu.flatten_one_level(3)


def test_jxk_broadcast_prefix_and_equality_errors():
    assert tu.broadcast_prefix((0, None), ([1, 2], 3), is_leaf=lambda x: x is None) == [0, 0, None]
    with pytest.raises(ValueError, match="different lengths of tuple at key path\n    broadcast_prefix prefix_tree"):
        tu.broadcast_prefix((0, 1), (1, 2, 3))
    errs = list(tu.equality_errors({"a": (1, 2), "b": [1]}, {"a": (1, 2, 3), "b": (1,)}))
    assert [(keystr(p), a, b, why) for p, a, b, why in errs] == [
        ("['a']", "tuple of length 2", "tuple of length 3", "the lengths do not match"),
        ("['b']", "<class 'list'>", "<class 'tuple'>", "their Python types differ")]


def test_jxk_dataclass_drop_fields_inferred():  # JAX 0.10.2 rejects this combination
    @dataclasses.dataclass
    class D:
        x: object
        cache: object = None
    tu.register_dataclass(D, drop_fields=["cache"])
    assert tree_flatten(D(1, "c"))[0] == [1] and tree_map(lambda v: v + 1, D(1, "c")) == D(2, None)


PURE = os.environ.get("JXKERNEL_PURE_PYTREES", "0") not in ("", "0")   # test_pytree_backends.py sets it


def test_jxk_backend_follows_the_environment():
    assert tu._pytree.__name__ == ("jxkernel.tree_util.pure" if PURE else "jxkernel.xla.pytree")
    assert tu.default_registry is tu._pytree.default_registry and tu.PyTreeDef is tu._pytree.PyTreeDef
    assert type(tree_structure([1])) is tu.PyTreeDef
    from jxkernel.transforms.jit import function, sharded   # jit flattens on the same registry
    assert function._registry is sharded._registry is tu.default_registry


def test_jxk_own_registry_and_pickle():
    pytree = tu._pytree
    td = tree_structure(((1, 2), {"a": [3, None]}, Point(1, 2), Node(1, 2)))
    assert pickle.loads(pickle.dumps(td)) == td and repr(pickle.loads(pickle.dumps(td))) == repr(td)
    none_leaf = pytree.none_leaf_registry.flatten([1, None, Node(2, None)])
    assert none_leaf[0] == [1, None, 2, None]
    if not PURE:
        assert pytree.default_registry is not pytree._pytree.default_registry()   # never jax's shared one
        assert pytree._pytree.default_registry().flatten(Node(1, 2))[0] == [Node(1, 2)]   # ours did not leak there


def test_the_jax_tree_namespace_has_jaxs_names():
    import jxkernel.tree as tree
    # dir(jax.tree) of JAX 0.10.2, public names
    names = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
             "map", "map_with_path", "reduce", "reduce_associative", "static", "structure",
             "transpose", "unflatten"]
    assert [n for n in dir(tree) if not n.startswith("_")] == names
    assert tree.broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == \
        (1, {"a": 2, "b": 2}, (3, 3))
    assert tree.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]]) == 21

    @tu.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        y: object
        op: str = tree.static(default="add")
        tag: str = tree.static(default="t", metadata={"doc": "kept"})
    leaves, treedef = tree.flatten(Op(1.0, 2.0))
    assert leaves == [1.0, 2.0]
    assert str(treedef) == "PyTreeDef(CustomNode(Op[('add', 't')], [*, *]))"
    assert dataclasses.fields(Op)[3].metadata == {"static": True, "doc": "kept"}


def test_a_mismatch_names_an_arrays_and_a_tracers_class_as_jax_does():
    # JAX 0.10.2 names jaxlib's C type (`<class 'jaxlib._jax.ArrayImpl'>`) and its tracers'
    # classes by their jax._src paths (partial_eval.DynamicJaxprTracer under jit,
    # batching.BatchTracer under vmap); jxkernel's message printed its own class paths
    # (`jxkernel.xla.array.ArrayImpl`, `jxkernel.core.staging.DynamicJaxprTracer`)
    import jxkernel
    import jxkernel.numpy as jnp
    said = []

    def last_line(x):
        try:
            tree_map(lambda a, b: a, {"w": 1}, x)
        except ValueError as e:
            said.append(str(e).splitlines()[-1].strip())
        return x

    last_line(jnp.ones(2))
    jxkernel.jit(last_line)(1.0)
    jxkernel.vmap(last_line)(jnp.ones(2))
    assert said[0] == "<class 'jaxlib._jax.ArrayImpl'>."
    assert said[1].endswith("._src.interpreters.partial_eval.DynamicJaxprTracer'>."), said
    assert said[2] == "<class 'jax._src.interpreters.batching.BatchTracer'>."
