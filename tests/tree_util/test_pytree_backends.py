"""tree_util on each of its two registries: jaxlib's (the default) and pure.py's, which it
takes where jaxlib cannot be imported or when JXKERNEL_PURE_PYTREES=1. Each run is a fresh
process: the choice is made once, when tree_util is imported."""
from fresh_process import assert_pytest_passes, run_code


def test_the_tree_util_tests_pass_on_the_pure_registry():
    assert_pytest_passes(["tests/tree_util/test_tree_util.py"], {"JXKERNEL_PURE_PYTREES": "1"})


def test_without_jaxlib_tree_util_takes_the_pure_registry():
    # jxkernel's own __init__ needs jaxlib (xla/client.py), so tree_util is imported here as a
    # submodule of a bare package: what a NumPy-only jxkernel will do.
    run_code("""
        import collections, dataclasses, os, sys, types
        sys.modules["jaxlib"] = None          # as if it were not installed
        package = types.ModuleType("jxkernel")
        package.__path__ = [os.path.join(os.getcwd(), "jxkernel")]
        sys.modules["jxkernel"] = package
        import jxkernel.tree_util as tu
        assert tu._pytree.__name__ == "jxkernel.tree_util.pure", tu._pytree
        assert not any(name.startswith("jaxlib") and sys.modules[name] for name in sys.modules)

        @tu.register_dataclass
        @dataclasses.dataclass
        class P:
            w: object
            n: int = dataclasses.field(default=1, metadata=dict(static=True))
        tree = {"b": P([1, 2]), "a": collections.OrderedDict(y=3, x=None)}
        assert str(tu.tree_structure(tree)) == \\
            "PyTreeDef({'a': CustomNode(OrderedDict[('y', 'x')], [*, None]), 'b': CustomNode(P[(1,)], [[*, *]])})"
        assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(tree)] == ["['a']['y']", "['b'].w[0]", "['b'].w[1]"]
        assert tu.tree_map(lambda x: x * 2, tree)["b"].w == [2, 4]
        try:
            tu.tree_map(lambda x, y: x, [1, (2,)], [1, [2]])
        except ValueError as e:
            assert "different types at key path\\n    tree_map tree[1]" in str(e), e
        else:
            raise AssertionError("no structure error")
        """)


def test_jit_grad_vmap_run_on_the_pure_registry():
    run_code("""
        import collections
        import jxkernel as jax, jxkernel.numpy as jnp
        from jxkernel import tree_util as tu
        assert tu._pytree.__name__ == "jxkernel.tree_util.pure"
        Pair = collections.namedtuple("Pair", "a b")
        f = jax.jit(lambda t: {"s": t["x"] + t["p"].a * t["p"].b, "n": None})
        t = {"x": jnp.ones(2), "p": Pair(jnp.full(2, 2.0), jnp.full(2, 3.0))}
        assert f(t)["s"].tolist() == [7.0, 7.0] and f(t)["n"] is None
        assert f(t)["s"].tolist() == [7.0, 7.0]           # the cached call flattens too
        g = jax.grad(lambda p: p.a * p.b)(Pair(2.0, 3.0))
        assert type(g) is Pair and (float(g.a), float(g.b)) == (3.0, 2.0)
        out = jax.vmap(lambda x, y: x * y, in_axes=(0, None))(jnp.arange(3.0), 2.0)
        assert out.tolist() == [0.0, 2.0, 4.0]
        """, {"JXKERNEL_PURE_PYTREES": "1"})
