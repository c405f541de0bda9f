"""A cell as a function: inputs (read before written), outputs (assigned), the rewritten
function, and the statement rewriting of the blocking %timeit. No IPython needed."""
import time

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel as jax  # noqa: E402
from jxkernel import lax  # noqa: E402
from jxkernel.notebook import cell, timeit  # noqa: E402


@pytest.mark.parametrize("source, reads, outputs", [
    ("y = x + 1", ["x"], ["y"]),
    ("x = 1\ny = x", [], ["x", "y"]),
    ("x += 1", ["x"], ["x"]),
    ("y = f(x)\nz = g(y, w)", ["f", "x", "g", "w"], ["y", "z"]),
    # a write in a branch does not hide a later read: the branch may not run
    ("if c:\n    y = 1\nz = y", ["c", "y"], ["y", "z"]),
    # ... unless every branch writes it
    ("if c:\n    y = 1\nelse:\n    y = 2\nz = y", ["c"], ["y", "z"]),
    ("if c:\n    y = 1\nelif d:\n    y = 2\nz = y", ["c", "d", "y"], ["y", "z"]),
    ("if c:\n    y = 1\nelif d:\n    y = 2\nelse:\n    y = 3\nz = y", ["c", "d"], ["y", "z"]),
    # ... but counts for the rest of its own block
    ("for i in range(n):\n    t = i * 2\n    s = t + i", ["range", "n"], ["i", "t", "s"]),
    ("while c:\n    c = step(c)", ["c", "step"], ["c"]),
    ("try:\n    a = 1\nexcept E as e:\n    b = e\nc = a", ["E", "a"], ["a", "e", "b", "c"]),
    ("with ctx() as h:\n    r = h", ["ctx"], ["h", "r"]),
    # nested scopes: their free variables are reads, their locals are not
    ("def g(a):\n    b = a + k\n    return b\ny = g(x)", ["k", "x"], ["g", "y"]),
    ("f = lambda a: a * w", ["w"], ["f"]),
    ("ys = [v * s for v in xs if v > t]", ["xs", "t", "s"], ["ys"]),   # ifs run before elt
    ("d = {k: v for k, v in items}", ["items"], ["d"]),
    ("class C(Base):\n    attr = val", ["Base", "val"], ["C"]),
    ("import numpy as np\nfrom math import pi\nz = np.sin(pi)", [], ["np", "pi", "z"]),
    ("(n := x + 1)\nm = n", ["x"], ["n", "m"]),
    ("a: int = b", ["b"], ["a"]),
    ("print(x)\nx", ["print", "x"], []),
])
def test_reads_and_outputs(source, reads, outputs):
    info = cell.analyze(source)
    assert info.reads == reads
    assert info.outputs == outputs


def test_last_expression_prints_and_positions():
    info = cell.analyze("y = x * n\nprint(y)\ny + x")
    assert info.has_last_expr and info.prints
    assert info.positions["x"] == [(1, 4, 5), (3, 4, 5)]
    assert not cell.analyze("y = 1").has_last_expr
    # positions reach into nested scopes (for the traced-vs-static view)
    assert cell.analyze("f = lambda a: a + k").positions["k"] == [(1, 18, 19)]


def test_build_makes_a_function_of_the_inputs():
    info = cell.analyze("y = x * 2\nfor i in range(n):\n    y = y + i\ny - 1")
    fn = cell.build(info, ["x", "n"], "f", "<cell-test>", {})
    scope = fn(10, 3)
    assert scope["y"] == 23 and scope[cell.LAST] == 22 and scope["i"] == 2
    assert fn.__code__.co_filename == "<cell-test>"
    assert fn.__code__.co_firstlineno == 1
    empty = cell.build(cell.analyze(""), [], "g", "<empty>", {})
    assert empty() == {}


def test_build_keeps_cell_line_numbers():
    info = cell.analyze("a = 1\n\nb = a + missing")
    fn = cell.build(info, [], "f", "<lines>", {})
    with pytest.raises(NameError) as e:
        fn()
    assert e.value.__traceback__.tb_next.tb_lineno == 3


@pytest.mark.parametrize("value, kind", [
    (1.0, cell.TRACED), (3, cell.TRACED), (True, cell.TRACED), (np.ones(2), cell.TRACED),
    ({"w": np.ones(2), "b": (1.0, 2)}, cell.TRACED), ([], cell.TRACED),
    ("name", cell.STATIC), (len, cell.STATIC), ({"lr": 0.1, "name": "sgd"}, cell.STATIC),
    (np, cell.GLOBAL),
])
def test_classify(value, kind):
    assert cell.classify(value, forced_static=False) == kind


def test_classify_jitted_function_is_static_and_forced_static_wins():
    assert cell.classify(jax.jit(lax.sin), False) == cell.STATIC
    assert cell.classify(2.0, True) == cell.STATIC
    assert cell.classify(jax.device_put(np.ones(3)), False) == cell.TRACED


def test_a_global_no_pytree_can_read_is_static_and_costs_no_recursion_room():
    """A cell's global whose flatten raises below its top (a dict holding itself, a dict with
    keys that cannot be sorted, one level down) is static. Read with jaxlib's recursive
    flatten, each cell run cost the process that many recursion frames, for good; a dict
    holding itself cost all of them (tree_util.leaves_within)."""
    from jxkernel.tree_util.recursion_room import room
    env = {"a": 1, "z": 2}
    env["itself"] = env
    mixed = {"w": {1: np.ones(2), "b": np.ones(2)}}
    before = room()
    for value in (env, mixed, mixed):
        assert cell.classify(value, forced_static=False) == cell.STATIC
    assert room() == before


def test_static_box_rides_in_the_tree_structure():
    from jxkernel.tree_util import tree_flatten, tree_unflatten
    box = cell.Static(["not", "hashable"])
    leaves, tree = tree_flatten({"a": 1.0, "b": box})
    assert leaves == [1.0]
    assert tree_unflatten(tree, [2.0])["b"] is box


# ------------------------------------------------------------------ %timeit rewriting
@pytest.mark.parametrize("source, expected", [
    ("f(x)", "__jx_block__(f(x))"),
    ("y = f(x)", "y = f(x)\n__jx_block_names__(locals(), ('y',))"),
    ("a, b = g(x); a + b",
     "a, b = g(x)\n__jx_block__(a + b)\n__jx_block_names__(locals(), ('a', 'b'))"),
    ("pass", "pass"),
])
def test_blocking_source(source, expected):
    assert timeit.blocking_source(source) == expected


class _Slow:
    """Stands in for an Array: ready only after block_until_ready."""
    def __init__(self):
        self.ready = False

    def block_until_ready(self):
        self.ready = True
        return self


def test_block_waits_for_every_leaf_of_any_pytree():
    tree = {"a": [_Slow(), _Slow()], "b": (_Slow(), 3, "text")}
    assert timeit.block(tree) is tree
    assert all(s.ready for s in (*tree["a"], tree["b"][0]))
    ns = {"y": _Slow()}
    timeit.block_names(ns, ("y", "unbound"))
    assert ns["y"].ready


def test_dispatch_timer_times_only_until_the_call_returns():
    ns = {}
    timeit.install(ns)
    slow = _Slow()
    ns["make"] = lambda: slow
    inner = timeit.dispatch_timer("n = 1", "out = make()\nout", ns)
    seconds = inner(5, time.perf_counter)
    assert 0 <= seconds < 0.5 and slow.ready        # blocked after the timed window
